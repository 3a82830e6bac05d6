#!/usr/bin/env python3
"""Load on `gamesman serve`: N keep-alive connections asking cheap questions for S seconds
while one long search runs; prints the cheap requests' latency percentiles.

    scripts/load-serve.py [--connections 200] [--seconds 20] [--binary target/release/gamesman]

Starts its own server (nim and connect4, --time-limit 10) on a free port. The long search is
Connect-4 on an empty 5x5 board (far past the limit for the script), asked again as soon as
it is answered. Each client sends its next request when the last is answered (a closed loop:
the load is bounded by the connections). Standard library only.
"""
import argparse, http.client, os, socket, subprocess, sys, threading, time

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--connections", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--binary", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "gamesman"))
    a = ap.parse_args()
    server = subprocess.Popen([a.binary, "serve", "nim", "connect4", "--port", "0", "--no-db"],
                              stdout=subprocess.PIPE, text=True)
    url = next(w for w in server.stdout.readline().split() if w.startswith("http://"))
    host, port = url[len("http://"):].rstrip("/").split(":")
    port = int(port)
    stop = time.monotonic() + a.seconds
    lat, errors, searches = [], [], []
    lock = threading.Lock()

    def cheap(i):
        c = http.client.HTTPConnection(host, port, timeout=30)
        heaps = [f"{(i + k) % 7 + 1},{(i * 3 + k) % 9 + 1},{k % 5 + 2}" for k in range(16)]
        k = 0
        mine = []
        while time.monotonic() < stop:
            t = time.perf_counter()
            try:
                c.request("GET", f"/api/nim/position?p={heaps[k % 16]}")
                r = c.getresponse(); r.read()
                if r.status != 200:
                    with lock: errors.append(r.status)
            except Exception as e:
                with lock: errors.append(repr(e))
                c = http.client.HTTPConnection(host, port, timeout=30)
            mine.append(time.perf_counter() - t)
            k += 1
        with lock: lat.extend(mine)

    def long_search():
        while time.monotonic() < stop:
            c = http.client.HTTPConnection(host, port, timeout=60)
            t = time.perf_counter()
            c.request("GET", "/api/connect4/position?p=5x5k4")
            r = c.getresponse(); r.read()
            searches.append((r.status, time.perf_counter() - t))

    threads = [threading.Thread(target=long_search)]
    threads += [threading.Thread(target=cheap, args=(i,)) for i in range(a.connections)]
    for t in threads: t.start()
    for t in threads: t.join()
    alive = server.poll() is None
    server.kill()
    lat.sort()
    pct = lambda p: lat[min(len(lat) - 1, int(p / 100 * len(lat)))] * 1000
    print(f"{a.connections} connections, {a.seconds:.0f} s, one long search running throughout")
    print(f"cheap requests: {len(lat)} ({len(lat) / a.seconds:.0f}/s), errors: {len(errors)}")
    print(f"latency ms: p50 {pct(50):.1f}  p90 {pct(90):.1f}  p99 {pct(99):.1f}  max {lat[-1] * 1000:.1f}")
    print(f"long searches: {len(searches)}, statuses {sorted(set(s for s, _ in searches))}, "
          f"longest {max((d for _, d in searches), default=0):.1f} s")
    print(f"server alive at the end: {alive}")
    return 0 if alive and not errors else 1

if __name__ == "__main__":
    sys.exit(main())
