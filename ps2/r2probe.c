/* Emulator self-check: executes one mips32r2 instruction (seb), then exits 0. */
void __start(void) {
    int in = 0x80, out;
    __asm__ volatile("seb %0, %1" : "=r"(out) : "r"(in));
    __asm__ volatile("move $4, %0\n li $2, 4001\n syscall" : : "r"(out == -128 ? 0 : 1) : "$2", "$4");
}
