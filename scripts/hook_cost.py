#!/usr/bin/env python3
"""What tern's agent hook (`tern msg agent-event`) costs the agent that runs it.

Runs the hook the way Claude Code does (a new process, the hook's JSON on stdin) N
times in each of three cases, in one run so the machine's load is shared: the floor
(`/bin/true` with the same stdin), no tern (no TERN_SOCKET: the hook exits at once), and
tern running (`tern --headless` serving a pane the report goes to). Prints p50 / p90 /
p99 in milliseconds per case and the ratios to the floor.

    scripts/hook_cost.py [--tern target/release/tern] [--runs 200]
"""
import argparse
import json
import os
import shutil
import subprocess
import tempfile
import time


def samples(argv, payload, env, runs):
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, input=payload, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        out.append((time.perf_counter() - t0) * 1000)
    out.sort()
    return out


def q(s, p):
    return s[min(len(s) - 1, int(p * len(s)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tern", default="target/release/tern")
    ap.add_argument("--runs", type=int, default=200)
    args = ap.parse_args()
    tern = os.path.abspath(args.tern)
    scratch = tempfile.mkdtemp(prefix="tern-hook-cost-")
    runtime = os.path.join(scratch, "xdg")
    os.makedirs(runtime, mode=0o700)
    env = dict(os.environ, HOME=scratch, XDG_RUNTIME_DIR=runtime, SHELL="/bin/sh")
    for k in ("TERN_SOCKET", "TERN_PANE_ID", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env.pop(k, None)
    server = subprocess.Popen([tern, "--headless"], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    socket = os.path.join(runtime, "tern", "session.sock")
    try:
        deadline = time.time() + 30
        while not os.path.exists(socket) and time.time() < deadline:
            time.sleep(0.05)
        payload = json.dumps({
            "session_id": "3f0c2a9e-1b2c-4d5e-8f90-123456789abc",
            "transcript_path": "/tmp/t.jsonl", "cwd": scratch,
            "hook_event_name": "Stop", "stop_hook_active": False}).encode()
        hook = [tern, "msg", "agent-event", "--agent", "claude"]
        with_tern = dict(env, TERN_SOCKET=socket, TERN_PANE_ID="1")
        cases = [("floor (/bin/true)", ["/bin/true"], env),
                 ("hook, no tern", hook, env),
                 ("hook, tern running", hook, with_tern)]
        # Interleaved rounds, so a burst of load hits every case alike.
        results = {name: [] for name, _, _ in cases}
        rounds = 5
        for _ in range(rounds):
            for name, argv, e in cases:
                results[name] += samples(argv, payload, e, args.runs // rounds)
        listed = subprocess.run([tern, "msg", "--socket", socket, "list"], env=env,
                                capture_output=True, text=True, check=False).stdout
        state = [(p["activity"], p["activity_source"]) for p in json.loads(listed or "[]")]
        floor = sorted(results[cases[0][0]])
        for name, _, _ in cases:
            s = sorted(results[name])
            print(f"{name:20} n={len(s)}  p50 {q(s, .5):6.2f}  p90 {q(s, .9):6.2f}  "
                  f"p99 {q(s, .99):6.2f} ms   p50 {q(s, .5) / q(floor, .5):4.1f}x floor")
        print(f"pane 1 after the reports: {state}")
    finally:
        server.terminate()
        server.wait(timeout=10)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
