/*
 * A minimal stand-in for libunwind, for the PS2 build of the contest binary.
 *
 * Rust's musl targets link `-lunwind`, which `-Zbuild-std` does not provide. The
 * contest binary is built with panic=abort, so nothing ever unwinds; the standard
 * library only asks the unwinder for backtraces, which this stand-in answers with
 * "no frames". Built with -march=mips2 -msoft-float like musl.
 */
typedef unsigned long uintptr_t; /* no headers: glibc's would not match musl */
void abort(void);

typedef int _Unwind_Reason_Code;
#define URC_END_OF_STACK 5
#define URC_FATAL_PHASE1_ERROR 3
struct _Unwind_Context;
struct _Unwind_Exception;
typedef _Unwind_Reason_Code (*_Unwind_Trace_Fn)(struct _Unwind_Context *, void *);

_Unwind_Reason_Code _Unwind_Backtrace(_Unwind_Trace_Fn trace, void *arg) {
    (void)trace;
    (void)arg;
    return URC_END_OF_STACK;
}
uintptr_t _Unwind_GetIP(struct _Unwind_Context *c) { (void)c; return 0; }
uintptr_t _Unwind_GetIPInfo(struct _Unwind_Context *c, int *before) { (void)c; *before = 0; return 0; }
uintptr_t _Unwind_GetCFA(struct _Unwind_Context *c) { (void)c; return 0; }
uintptr_t _Unwind_GetGR(struct _Unwind_Context *c, int i) { (void)c; (void)i; return 0; }
void _Unwind_SetGR(struct _Unwind_Context *c, int i, uintptr_t v) { (void)c; (void)i; (void)v; }
void _Unwind_SetIP(struct _Unwind_Context *c, uintptr_t v) { (void)c; (void)v; }
uintptr_t _Unwind_GetLanguageSpecificData(struct _Unwind_Context *c) { (void)c; return 0; }
uintptr_t _Unwind_GetRegionStart(struct _Unwind_Context *c) { (void)c; return 0; }
uintptr_t _Unwind_GetTextRelBase(struct _Unwind_Context *c) { (void)c; return 0; }
uintptr_t _Unwind_GetDataRelBase(struct _Unwind_Context *c) { (void)c; return 0; }
void *_Unwind_FindEnclosingFunction(void *pc) { (void)pc; return 0; }
_Unwind_Reason_Code _Unwind_RaiseException(struct _Unwind_Exception *e) { (void)e; return URC_FATAL_PHASE1_ERROR; }
void _Unwind_Resume(struct _Unwind_Exception *e) { (void)e; abort(); }
void _Unwind_DeleteException(struct _Unwind_Exception *e) { (void)e; }
