#!/usr/bin/env python3
"""What a person feels, measured on the window's pixels (the typometer method).

tern beside alacritty, kitty and xterm in one Xvfb (Mesa's software renderers for every
GPU terminal), each test alternating between the terminals so drift on the machine falls
on all alike:

  keys   a key pressed through XTEST into a window running `cat` (raw, no tty echo: the
         echo is cat's), timed until the window's pixels change;
  keys-full  the same keys typed over a full screen of 55-column build-log lines (the
         cursor at its top left);
  tab    Ctrl+Tab between a tab holding 1,000,000 lines and one running `cat`, timed
         until the pixels change (tern and kitty);
  tab-full   the same between two full screens: 1,000,000 build-log lines, and `cat`
         below a screen of them;
  paint  launch to the first frame that shows the program's first output (a line of
         magenta cells), the window read every 2 ms; best of RUNS;
  idle   CPU ticks in 10 s of a window whose shell sits at a prompt (tern also with
         20 panes, tern-x20): nothing changes, so nothing should be drawn;
  flood  keys as above while four hidden tabs print a file in a loop as fast as the
         pty takes it (tern and kitty), and the hidden tabs' output in MB/s while the
         keys come and for as long after them;
  agents 32 hidden tabs (--agents) each running a stand-in agent (a spinner line
         redrawn 20 times a second, OSC 2 with a spinner frame 10 times a second; the
         -quiet lines: no titles; tern-none: no agents; tern-still with --still: the
         same tabs and titles, silent), `cat` in view: CPU ticks in 20 s (--agents-s),
         RSS, then keys into `cat` (tern, tern-before and kitty; --breakdown: where
         each tern key's time goes, from TERN_TRACE);
  tui    the same stand-in agent in view: CPU ticks a second over --agents-s.

Prints p50 / p90 / p99 in ms and each terminal's ratio to the best GPU peer
(alacritty, kitty); `--json PATH` writes every sample. Only libX11 and libXtst (ctypes).

  scripts/typometer.py [--tests keys,keys-full,tab,tab-full,paint,idle,flood,agents,tui] [--keys 100] [--runs 3] [--cols 80
                        --rows 24] [--terms tern,alacritty,kitty,xterm] [--json PATH]
                        [--tern PATH] [-o KEY=VALUE (tern option, repeatable)]
                        [--before PATH [--before-env KEY=VALUE] [--before-option KEY=VALUE]]
"""

import argparse
import ctypes
import ctypes.util
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAGENTA = b"\xff\x00\xff"  # BGRX bytes of (255, 0, 255)
GPU_PEERS = ("alacritty", "kitty")


class XImage(ctypes.Structure):
    _fields_ = [
        ("width", ctypes.c_int),
        ("height", ctypes.c_int),
        ("xoffset", ctypes.c_int),
        ("format", ctypes.c_int),
        ("data", ctypes.c_void_p),
        ("byte_order", ctypes.c_int),
        ("bitmap_unit", ctypes.c_int),
        ("bitmap_bit_order", ctypes.c_int),
        ("bitmap_pad", ctypes.c_int),
        ("depth", ctypes.c_int),
        ("bytes_per_line", ctypes.c_int),
        ("bits_per_pixel", ctypes.c_int),
    ]


class XWindowAttributes(ctypes.Structure):
    _fields_ = [
        ("x", ctypes.c_int),
        ("y", ctypes.c_int),
        ("width", ctypes.c_int),
        ("height", ctypes.c_int),
        ("border_width", ctypes.c_int),
        ("depth", ctypes.c_int),
        ("visual", ctypes.c_void_p),
        ("root", ctypes.c_ulong),
        ("class_", ctypes.c_int),
        ("bit_gravity", ctypes.c_int),
        ("win_gravity", ctypes.c_int),
        ("backing_store", ctypes.c_int),
        ("backing_planes", ctypes.c_ulong),
        ("backing_pixel", ctypes.c_ulong),
        ("save_under", ctypes.c_int),
        ("colormap", ctypes.c_ulong),
        ("map_installed", ctypes.c_int),
        ("map_state", ctypes.c_int),
        ("all_event_masks", ctypes.c_long),
        ("your_event_mask", ctypes.c_long),
        ("do_not_propagate_mask", ctypes.c_long),
        ("override_redirect", ctypes.c_int),
        ("screen", ctypes.c_void_p),
    ]


ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


class X:
    """The few Xlib calls the measures need. X errors (a window that went away or is
    not mapped yet) are ignored: the call then returns nothing."""

    def __init__(self, display):
        self.x = ctypes.CDLL(ctypes.util.find_library("X11") or "libX11.so.6")
        self.xt = ctypes.CDLL(ctypes.util.find_library("Xtst") or "libXtst.so.6")
        x = self.x
        x.XOpenDisplay.restype = ctypes.c_void_p
        x.XOpenDisplay.argtypes = [ctypes.c_char_p]
        x.XDefaultRootWindow.restype = ctypes.c_ulong
        x.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
        x.XGetImage.restype = ctypes.POINTER(XImage)
        x.XGetImage.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int,
                                ctypes.c_uint, ctypes.c_uint, ctypes.c_ulong, ctypes.c_int]
        x.XFree.argtypes = [ctypes.c_void_p]
        x.XQueryTree.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_ulong),
                                 ctypes.POINTER(ctypes.c_ulong),
                                 ctypes.POINTER(ctypes.POINTER(ctypes.c_ulong)),
                                 ctypes.POINTER(ctypes.c_uint)]
        x.XGetWindowAttributes.argtypes = [ctypes.c_void_p, ctypes.c_ulong,
                                           ctypes.POINTER(XWindowAttributes)]
        x.XSetInputFocus.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_ulong]
        x.XRaiseWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        x.XStringToKeysym.restype = ctypes.c_ulong
        x.XStringToKeysym.argtypes = [ctypes.c_char_p]
        x.XKeysymToKeycode.restype = ctypes.c_ubyte
        x.XKeysymToKeycode.argtypes = [ctypes.c_void_p, ctypes.c_ulong]
        x.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
        x.XFlush.argtypes = [ctypes.c_void_p]
        self.xt.XTestFakeKeyEvent.argtypes = [ctypes.c_void_p, ctypes.c_uint, ctypes.c_int,
                                              ctypes.c_ulong]
        self.errors = 0

        def on_error(_d, _e):
            self.errors += 1
            return 0

        self._handler = ERROR_HANDLER(on_error)
        x.XSetErrorHandler(self._handler)
        self.d = x.XOpenDisplay(display.encode())
        if not self.d:
            raise SystemExit(f"cannot open display {display}")
        self.root = x.XDefaultRootWindow(self.d)

    def children(self):
        root, parent = ctypes.c_ulong(), ctypes.c_ulong()
        kids, n = ctypes.POINTER(ctypes.c_ulong)(), ctypes.c_uint()
        if not self.x.XQueryTree(self.d, self.root, ctypes.byref(root), ctypes.byref(parent),
                                 ctypes.byref(kids), ctypes.byref(n)):
            return []
        out = [kids[i] for i in range(n.value)]
        if kids:
            self.x.XFree(kids)
        return out

    def viewable(self, w):
        """(width, height) of a mapped window, else None."""
        a = XWindowAttributes()
        if not self.x.XGetWindowAttributes(self.d, w, ctypes.byref(a)):
            return None
        return (a.width, a.height) if a.map_state == 2 else None

    def grab(self, w, size):
        """The window's pixels as bytes (BGRX), or None."""
        img = self.x.XGetImage(self.d, w, 0, 0, size[0], size[1], 0xFFFFFFFF, 2)
        if not img:
            return None
        i = img.contents
        data = ctypes.string_at(i.data, i.bytes_per_line * i.height)
        self.x.XFree(i.data)
        self.x.XFree(img)
        return data

    def focus(self, w):
        self.x.XRaiseWindow(self.d, w)
        self.x.XSetInputFocus(self.d, w, 2, 0)  # RevertToParent, CurrentTime
        self.x.XSync(self.d, 0)

    def keycode(self, name):
        return self.x.XKeysymToKeycode(self.d, self.x.XStringToKeysym(name.encode()))

    def press(self, codes):
        """Presses the keys in order and releases them in reverse; returns once sent."""
        for c in codes:
            self.xt.XTestFakeKeyEvent(self.d, c, 1, 0)
        for c in reversed(codes):
            self.xt.XTestFakeKeyEvent(self.d, c, 0, 0)
        self.x.XFlush(self.d)


def launch_cmd(term, args, cols, rows, program, extra):
    """The argv that starts TERM running `program` (a list) at COLSxROWS."""
    if term in ("tern", "tern-before"):
        binary = args.tern if term == "tern" else args.before
        opts = []
        for o in args.tern_option:
            opts += ["-o", o]
        if term == "tern-before":
            for o in args.before_option:
                opts += ["-o", o]
        envs = ["env", *args.before_env] if term == "tern-before" and args.before_env else []
        opts += extra.get("tern_opts", [])
        return [*envs, binary, "--config", extra["config"], *opts, "-o", "cursor.blinking=false",
                "--cols", str(cols), "--rows", str(rows), "-e", *program]
    if term == "alacritty":
        return ["alacritty", "--config-file", extra["alacritty"],
                "-o", f"window.dimensions.columns={cols}", "-o", f"window.dimensions.lines={rows}",
                "-e", *program]
    if term == "kitty":
        return ["kitty", "--config", "NONE", "-o", "cursor_blink_interval=0",
                "-o", f"initial_window_width={cols}c", "-o", f"initial_window_height={rows}c",
                "-o", "scrollback_lines=1100000", "-o", "remember_window_size=no",
                *(["--session", extra["session"]] if "session" in extra else program)]
    if term == "xterm":
        return ["xterm", "-geometry", f"{cols}x{rows}", "-e", *program]
    raise SystemExit(f"unknown terminal {term}")


class Running:
    """A terminal started on the display, and its window once it shows."""

    def __init__(self, x, argv, env):
        self.x = x
        self.before = set(x.children())
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL,
                                     stderr=open(os.environ.get("TYPOMETER_STDERR", os.devnull), "a"),
                                     start_new_session=True)
        self.win = None
        self.size = None

    def find_window(self):
        best = None
        for w in self.x.children():
            if w in self.before:
                continue
            s = self.x.viewable(w)
            if s and s[0] > 100 and s[1] > 60 and (best is None or s[0] * s[1] > best[1][0] * best[1][1]):
                best = (w, s)
        if best:
            self.win, self.size = best
        return self.win

    def wait_window(self, timeout=20.0):
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            if self.find_window():
                return True
            time.sleep(0.01)
        return False

    def grab(self):
        return self.x.grab(self.win, self.size)

    def settle(self, quiet=0.4, timeout=30.0):
        """Waits until the pixels have not changed for `quiet` seconds."""
        end = time.perf_counter() + timeout
        last, since = self.grab(), time.perf_counter()
        while time.perf_counter() < end:
            time.sleep(0.02)
            now = self.grab()
            if now != last:
                last, since = now, time.perf_counter()
            elif time.perf_counter() - since >= quiet:
                return True
        return False

    def stop(self):
        try:
            os.killpg(self.proc.pid, 15)
        except ProcessLookupError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()


def until_change(run, before, timeout=2.0):
    """Seconds from now until the window's pixels differ from `before` (None: timeout)."""
    t0 = time.perf_counter()
    end = t0 + timeout
    while True:
        now = run.grab()
        t = time.perf_counter()
        if now is not None and now != before:
            return t - t0
        if t > end:
            return None


def press_and_time(x, run, codes, samples, settle_s, presses=None):
    """Presses `codes` `samples` times; the seconds until the pixels change each time.
    `presses` gets (CLOCK_MONOTONIC µs of the press, seconds to the change or None)."""
    out, missed = [], 0
    for _ in range(samples):
        time.sleep(settle_s + random.uniform(0.0, 0.03))
        before = run.grab()
        at_us = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        x.press(codes)
        s = until_change(run, before)
        if presses is not None:
            presses.append((at_us, s))
        if s is None:
            missed += 1
        else:
            out.append(s)
    return out, missed


STEPS = [
    ("key sent -> written to the pty (X, winit, egui, the frame that took it)", "sent", "received_us"),
    ("written -> echo read from the pty (cat's round trip)", "received_us", "echo_read_us"),
    ("echo read -> parsed, delivery built", "echo_read_us", "echo_built_us"),
    ("delivery built -> UI woken", "echo_built_us", "woken_us"),
    ("UI woken -> frame started", "woken_us", "frame_started_us"),
    ("frame started -> UI built (egui, panes)", "frame_started_us", "ui_done_us"),
    ("UI built -> pixels changed (tessellate, paint, submit, present)", "ui_done_us", "seen"),
]


def key_breakdown(trace_path, presses):
    """Per key, the time of each step (ms), from the trace and the pixel times."""
    events = []
    with open(trace_path) as f:
        for line in f:
            try:
                events.append(json.loads(line))
            except ValueError:
                pass
    start = next((e.get("monotonic_us") for e in events if e["event"] == "process_start"), None)
    if start is None:
        return {}
    echoes = []
    for i, e in enumerate(events):
        if e["event"] != "key_echo_frame":
            continue
        ui_done = next((f["t_us"] for f in events[i + 1:] if f["event"] == "frame"), None)
        echoes.append(dict(e, ui_done_us=ui_done))
    steps = {name: [] for name, _, _ in STEPS}
    for at_us, seen in presses:
        if seen is None:
            continue
        sent = at_us - start
        echo = next((e for e in echoes if e["received_us"] >= sent), None)
        if echo is None:
            continue
        point = dict(echo, sent=sent, seen=sent + seen * 1e6)
        if 0 <= point.get("frame_started_us", -1) <= point.get("received_us", -1):
            # The key's own frame waited for the echo and drew it: no wake-up was
            # asked for it (the last wake-up in the trace is an older one's).
            point["woken_us"] = -1
        for name, a, b in STEPS:
            if point.get(a, -1) >= 0 and point.get(b, -1) is not None and point.get(b, -1) >= 0:
                steps[name].append((point[b] - point[a]) / 1e3)
    return steps


def pct(samples, q):
    a = sorted(samples)
    return a[min(len(a) - 1, int(round((len(a) - 1) * q)))] if a else float("nan")


def cat_program():
    return ["sh", "-c", "stty raw -echo; exec cat"]


def full_screen_program(work, rows):
    """A screen full of build-log lines, the cursor at its top left, then `cat`: each
    key typed overwrites a cell of a full screen."""
    screen = log_lines(os.path.join(work, "log-screen"), rows * 2, 4)
    return ["sh", "-c", f"cat {screen}; printf '\\033[H'; stty raw -echo; exec cat"]


def test_keys(x, term, args, env, extra, cols, rows, breakdown=None, work=None):
    trace = None
    if term == "tern" and breakdown is not None:
        trace = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"typometer-{os.getpid()}.jsonl")
        env = dict(env, TERN_TRACE=trace)
    program = full_screen_program(work, rows) if work else cat_program()
    run = Running(x, launch_cmd(term, args, cols, rows, program, extra), env)
    presses = []
    try:
        if not run.wait_window():
            return None, "no window"
        run.settle(quiet=0.5)
        x.focus(run.win)
        run.settle(quiet=0.3)
        code = x.keycode("x")
        press_and_time(x, run, [code], 5, 0.05)  # warm-up: fonts, first glyph
        return press_and_time(x, run, [code], args.keys, 0.05, presses)
    finally:
        run.stop()
        if trace:
            for name, v in key_breakdown(trace, presses).items():
                breakdown.setdefault(name, []).extend(v)
            if not os.environ.get("TYPOMETER_KEEP_TRACE"):
                os.unlink(trace)


LEVELS = [("INFO ", "32"), ("DEBUG", "36"), ("WARN ", "33"), ("ERROR", "31")]


def log_lines(path, n, seed):
    """`n` build-log lines of 55 columns, mixed text with a coloured level, once."""
    if os.path.exists(path):
        return path
    rnd = random.Random(seed)
    words = ["compiled", "crate", "linking", "test", "ok", "cache", "miss", "fetch", "tern-core",
             "wgpu", "egui", "parser", "grid", "scroll", "frame", "resolve", "step", "done"]
    with open(path, "w") as f:
        for i in range(n):
            level, colour = LEVELS[rnd.randrange(4)]
            text = " ".join(rnd.choice(words) for _ in range(6))
            text = (text + " " * 30)[:30]
            f.write(f"12:{i // 6000 % 60:02d}:{i // 100 % 60:02d}.{i % 100:02d} "
                    f"\033[{colour}m{level}\033[0m {text} #{i % 1000:03d}\n")
    return path


def test_tab(x, term, args, env, extra, cols, rows, work, full=False):
    """Ctrl+Tab between a tab of 1,000,000 lines and one running `cat`. `full`: the big
    tab's lines are 55-column build-log lines and the `cat` tab's screen is full of
    them too (the screens people switch between); else `seq` and an empty `cat`."""
    cat = "stty raw -echo; exec cat"
    if full:
        big_file = log_lines(os.path.join(work, "log-1000000"), 1_000_000, 3)
        small_file = log_lines(os.path.join(work, "log-screen"), rows * 2, 4)
        big = f"cat {big_file}; exec cat"
        cat = f"cat {small_file}; {cat}"
    else:
        big = "seq 1000000; exec cat"
    if term.startswith("tern"):
        # Keep the million lines (the default scrollback keeps 10,000), as kitty does.
        extra = dict(extra, tern_opts=["-o", "scrollback_lines=1100000"])
        tern = os.path.abspath(args.tern if term == "tern" else args.before)
        program = ["sh", "-c",
                   f"{big.removesuffix('; exec cat')}; {tern} msg new-tab -- sh -c '{cat}' >/dev/null; exec cat"]
    else:
        session = os.path.join(work, f"kitty-session-{int(full)}")
        with open(session, "w") as f:
            f.write(f"new_tab big\nlaunch sh -c '{big}'\nnew_tab cat\nlaunch sh -c '{cat}'\n")
        extra = dict(extra, session=session)
        program = []
    run = Running(x, launch_cmd(term, args, cols, rows, program, extra), env)
    try:
        if not run.wait_window():
            return None, "no window"
        run.settle(quiet=1.0, timeout=60)
        x.focus(run.win)
        run.settle(quiet=0.5)
        codes = [x.keycode("Control_L"), x.keycode("Tab")]
        press_and_time(x, run, codes, 4, 0.15)
        return press_and_time(x, run, codes, args.keys, 0.15)
    finally:
        run.stop()


def test_flood(x, term, args, env, extra, cols, rows, work, breakdown=None):
    """Keys into `cat` in the visible tab while four hidden tabs print a file in a loop
    as fast as the pty takes it (tern and kitty)."""
    # The flood: a 2.4 MB file printed in a loop, in ten parts so that a counter file
    # gets a line per 240 KB (the hidden tabs' throughput, while typing and after).
    parts = os.path.join(work, "flood.part")
    if not os.path.exists(parts + "0"):
        rnd = random.Random(7)
        for k in range(10):
            with open(f"{parts}{k}", "w") as f:
                for _ in range(4_000):
                    f.write("".join(rnd.choice("abcdefghijklmnopqrstuvwxyz0123456789 ") for _ in range(60)) + "\n")
    part_bytes = os.path.getsize(parts + "0")
    count = os.path.join(work, f"flood-count-{term}")
    open(count, "w").close()
    loop = f"while :; do for f in {parts}?; do cat $f; echo >> {count}; done; done"
    cat = "stty raw -echo; exec cat"
    if term.startswith("tern"):
        tern = os.path.abspath(args.tern if term == "tern" else args.before)
        tabs = "".join(f"{tern} msg new-tab -- sh -c '{loop}' >/dev/null; " for _ in range(4))
        program = ["sh", "-c", f"{tabs}{tern} msg new-tab -- sh -c '{cat}' >/dev/null; exec sleep 1000"]
    else:
        session = os.path.join(work, "kitty-flood-session")
        with open(session, "w") as f:
            for i in range(4):
                f.write(f"new_tab flood{i}\nlaunch sh -c '{loop}'\n")
            f.write(f"new_tab cat\nlaunch sh -c '{cat}'\nfocus\n")
        extra = dict(extra, session=session)
        program = []
    trace = None
    if term == "tern" and breakdown is not None:
        trace = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"typometer-{os.getpid()}.jsonl")
        env = dict(env, TERN_TRACE=trace)
    presses = []
    run = Running(x, launch_cmd(term, args, cols, rows, program, extra), env)
    try:
        if not run.wait_window():
            return None, "no window"
        time.sleep(3.0)  # the tabs open and the floods start
        x.focus(run.win)
        time.sleep(0.5)
        code = x.keycode("x")
        press_and_time(x, run, [code], 5, 0.05)

        def parts_done():
            with open(count) as f:
                return f.read().count("\n")

        n0, t0 = parts_done(), time.perf_counter()
        got = press_and_time(x, run, [code], args.keys, 0.05, presses)
        n1, t1 = parts_done(), time.perf_counter()
        # After the typing: as long again, once tern's throttle (500 ms) has ended.
        time.sleep(0.6)
        n2, t2 = parts_done(), time.perf_counter()
        time.sleep(t1 - t0)
        n3, t3 = parts_done(), time.perf_counter()
        mb_s = lambda n, t: n * part_bytes / t / 1e6
        args.flood_rates.setdefault(term, []).append((mb_s(n1 - n0, t1 - t0), mb_s(n3 - n2, t3 - t2)))
        return got
    finally:
        run.stop()
        if trace:
            for name, v in key_breakdown(trace, presses).items():
                breakdown.setdefault(name, []).extend(v)
            if not os.environ.get("TYPOMETER_KEEP_TRACE"):
                os.unlink(trace)


AGENT = r"""
import sys, time
frames, titles, out = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏", sys.argv[1] == "1", sys.stdout.buffer
out.write(b"a stand-in agent\r\n")
t0, n = time.monotonic(), 0
while True:
    n += 1
    f = frames[n % 10]
    s = f"\r\x1b[2K\x1b[33m{f}\x1b[0m Working… ({n // 20}s · esc to interrupt)"
    if titles and n % 2 == 0:
        s += f"\x1b]2;{f} Claude Code\x07"
    out.write(s.encode())
    out.flush()
    time.sleep(max(0.0, t0 + n * 0.05 - time.monotonic()))
"""


def test_tui(x, term, args, env, extra, cols, rows, work):
    """CPU ticks per second of a window whose visible pane is a stand-in agent redrawing
    its spinner line 20 times a second and its title 10 times a second."""
    agent = os.path.join(work, "agent.py")
    with open(agent, "w") as f:
        f.write(AGENT)
    run = Running(x, launch_cmd(term, args, cols, rows, [sys.executable, agent, "1"], extra), env)
    try:
        if not run.wait_window():
            return None, "no window"
        time.sleep(2.0)
        before = ticks(run.proc.pid)
        time.sleep(args.agents_s)
        return [(ticks(run.proc.pid) - before) / args.agents_s], 0
    finally:
        run.stop()


def vm_kb(pid, field):
    """A `VmRSS`-like field of /proc/PID/status, in kB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def test_agents(x, term, args, env, extra, cols, rows, work, titles, agents, breakdown=None, variant=None,
                still=False):
    """CPU ticks in `args.agents_s` seconds of a window whose `args.agents` hidden tabs
    each run a stand-in agent (a spinner line redrawn 20 times a second and, with
    `titles`, OSC 2 with a spinner frame 10 times a second, as Claude Code and Codex do)
    and whose visible tab runs `cat`; then the window's RSS and, with `--keys`, keys
    into the visible `cat`. Returns (ticks, rss_kb, key samples). With `breakdown`, a
    tern's keys are also split into their steps (TERN_TRACE), under `variant`'s name."""
    trace = None
    if term.startswith("tern") and breakdown is not None:
        trace = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"typometer-{os.getpid()}.jsonl")
        env = dict(env, TERN_TRACE=trace)
    presses = []
    agent = os.path.join(work, "agent.py")
    with open(agent, "w") as f:
        f.write(AGENT)
    run_agent = f"{sys.executable} {agent} {1 if titles else 0}"
    if still:
        # The same tabs and titles, no output after the first line: the tab bar's cost
        # without the agents' work.
        run_agent = "sh -c \"printf 'a stand-in agent\\r\\n\\033]2;Claude Code\\007'; exec sleep 1000\""
    cat = "stty raw -echo; exec cat"
    if term.startswith("tern"):
        tern = os.path.abspath(args.tern if term == "tern" else args.before)
        tabs = "".join(f"{tern} msg new-tab -- {run_agent} >/dev/null; " for _ in range(agents))
        program = ["sh", "-c", f"{tabs}{tern} msg new-tab -- sh -c '{cat}' >/dev/null; exec sleep 1000"]
    else:
        session = os.path.join(work, f"kitty-agents-{int(titles)}")
        with open(session, "w") as f:
            for i in range(agents):
                f.write(f"new_tab agent{i}\nlaunch {run_agent}\n")
            f.write(f"new_tab cat\nlaunch sh -c '{cat}'\nfocus\n")
        extra = dict(extra, session=session)
        program = []
    run = Running(x, launch_cmd(term, args, cols, rows, program, extra), env)
    try:
        if not run.wait_window():
            return None, "no window"
        time.sleep(2.0 + agents * 0.1)  # the tabs open, the agents start
        x.focus(run.win)
        time.sleep(3.0)  # past the activity rules' quiet time
        before = ticks(run.proc.pid)
        time.sleep(args.agents_s)
        used = ticks(run.proc.pid) - before
        rss = vm_kb(run.proc.pid, "VmRSS")
        keys = []
        if args.keys:
            code = x.keycode("x")
            press_and_time(x, run, [code], 5, 0.05)
            keys, _ = press_and_time(x, run, [code], args.keys, 0.05, presses)
        return (used, rss, keys), 0
    finally:
        run.stop()
        if trace:
            for name, v in key_breakdown(trace, presses).items():
                breakdown.setdefault(f"[{variant}] {name}", []).extend(v)
            if not os.environ.get("TYPOMETER_KEEP_TRACE"):
                os.unlink(trace)
            else:
                os.rename(trace, f"{trace[:-6]}-{variant}.jsonl")


def test_paint(x, term, args, env, extra, cols, rows):
    line = "\\033[48;2;255;0;255m" + " " * 40 + "\\033[0m"
    program = ["sh", "-c", f"printf '{line}'; exec sleep 30"]
    run = Running(x, launch_cmd(term, args, cols, rows, program, extra), env)
    try:
        end = run.t0 + 20
        while time.perf_counter() < end:
            if run.win or run.find_window():
                img = run.grab()
                if img is not None and img.count(MAGENTA) > 200:
                    return [time.perf_counter() - run.t0], 0
            time.sleep(0.002)
        return None, "no magenta within 20 s"
    finally:
        run.stop()


def ticks(pid):
    """CPU ticks (1/100 s: user + system, all threads) the process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def test_idle(x, term, args, env, extra, cols, rows, panes):
    """Ticks in `args.idle_s` seconds of a window whose `panes` shells sit at a prompt."""
    shell = "exec bash --norc -i"
    if panes > 1:
        tern = os.path.abspath(args.tern if term == "tern" else args.before)
        shell = f"for i in $(seq {panes - 1}); do {tern} msg new-tab >/dev/null; done; {shell}"
    run = Running(x, launch_cmd(term, args, cols, rows, ["sh", "-c", shell], extra), env)
    try:
        if not run.wait_window():
            return None, "no window"
        run.settle(quiet=1.0, timeout=30)
        x.focus(run.win)
        time.sleep(3.0)  # past the activity rules' quiet time
        before = ticks(run.proc.pid)
        time.sleep(args.idle_s)
        return [ticks(run.proc.pid) - before], 0
    finally:
        run.stop()


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tests", default="keys,tab,paint")
    p.add_argument("--terms", default="tern,alacritty,kitty,xterm")
    p.add_argument("--keys", type=int, default=100, help="samples per terminal and run")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--cols", type=int, default=80)
    p.add_argument("--rows", type=int, default=24)
    p.add_argument("--tern", default=os.path.join(ROOT, "target/release/tern"))
    p.add_argument("-o", dest="tern_option", action="append", default=[])
    p.add_argument("--before", help="another tern build to run beside (as tern-before), say main's")
    p.add_argument("--before-env", action="append", default=[],
                   help="KEY=VALUE for tern-before's environment (repeatable): with --before the "
                        "same binary, say TERN_NO_THROTTLE=1, measures one change in one run")
    p.add_argument("--before-option", action="append", default=[],
                   help="KEY=VALUE, a tern option for tern-before only (repeatable): with --before "
                        "the same binary, say session.persist_scrollback=false")
    p.add_argument("--idle-s", type=float, default=10.0)
    p.add_argument("--agents", type=int, default=32, help="hidden tabs of stand-in agents (agents test)")
    p.add_argument("--agents-s", type=float, default=20.0, help="seconds of CPU ticks (agents test)")
    p.add_argument("--xvfb-arg", action="append", default=[],
                   help="a further Xvfb argument, repeatable (say --xvfb-arg=-extension --xvfb-arg=MIT-SHM: "
                        "every terminal then sends its frames by plain PutImage)")
    p.add_argument("--still", action="store_true",
                   help="agents: also tern-still, the same 32 tabs and titles with silent programs")
    p.add_argument("--breakdown", action="store_true",
                   help="keys, keys-full, flood, agents: split tern's keys into their steps (TERN_TRACE); "
                        "the trace's own writes then cost tern's frames, so figures held against "
                        "peers are taken without it")
    p.add_argument("--json")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    args.flood_rates = {}
    random.seed(args.seed)
    terms = [t for t in args.terms.split(",") if t == "tern" or shutil.which(t)]
    if args.before:
        terms.insert(1, "tern-before")
        # The runs happen in a scratch folder: a relative path would name nothing there.
        args.before = os.path.abspath(args.before)
    args.tern = os.path.abspath(args.tern)
    if not os.access(args.tern, os.X_OK):
        raise SystemExit(f"no tern at {args.tern} (cargo build --release -p tern)")

    work = tempfile.mkdtemp(prefix="typometer.")
    env = dict(os.environ)
    env["XDG_RUNTIME_DIR"] = os.path.join(work, "xdg")
    os.mkdir(env["XDG_RUNTIME_DIR"], 0o700)
    env["HOME"] = os.path.join(work, "home")
    os.mkdir(env["HOME"])
    env["SHELL"] = "/bin/sh"
    env.setdefault("LIBGL_ALWAYS_SOFTWARE", "1")  # kitty's GL under Xvfb
    env.pop("TERN_SOCKET", None)
    extra = {"config": os.path.join(work, "tern.ron"), "alacritty": os.path.join(work, "alacritty.yml")}
    with open(extra["config"], "w") as f:
        f.write("()\n")
    with open(extra["alacritty"], "w") as f:
        f.write("cursor:\n  blinking: Never\n")
    n = 90
    while os.path.exists(f"/tmp/.X{n}-lock") or os.path.exists(f"/tmp/.X11-unix/X{n}"):
        n += 1
    xvfb = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", "1600x1000x24", "-nolisten", "tcp"] + args.xvfb_arg,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    env["DISPLAY"] = f":{n}"
    results = {"terms": terms, "cols": args.cols, "rows": args.rows, "tests": {}}
    try:
        for _ in range(200):
            if os.path.exists(f"/tmp/.X11-unix/X{n}"):
                break
            time.sleep(0.05)
        time.sleep(0.2)
        x = X(env["DISPLAY"])
        os.chdir(work)
        for test in args.tests.split(","):
            names = [t for t in terms
                     if test not in ("tab", "tab-full", "flood") or t in ("tern", "tern-before", "kitty")]
            if test == "idle":
                for t in ("tern-before", "tern"):
                    if t in names:
                        names.insert(names.index(t) + 1, t + "-x20")
            if test == "agents":
                # Each terminal with the agents' titles and without (-quiet).
                # tern-none: the same window with no agents (its keys are the peer of
                # tern's keys with the agents).
                names = [v for t in names if t in ("tern", "tern-before", "kitty")
                         for v in (t, t + "-quiet", *(["tern-none"] if t == "tern" else []),
                                   *(["tern-still"] if t == "tern" and args.still else []))]
            samples = {t: [] for t in names}
            breakdown = {}
            # The trace's own work (a write a line, the fields it computes) lands in the
            # frames it times: tern is traced only when asked, never by default beside
            # its peers (and tern-before, which is not traced).
            split = breakdown if args.breakdown else None
            missed = {t: 0 for t in names}
            for r in range(args.runs):
                for t in names:
                    if test == "keys":
                        got = test_keys(x, t, args, env, extra, args.cols, args.rows, split)
                    elif test == "keys-full":
                        got = test_keys(x, t, args, env, extra, args.cols, args.rows, split, work)
                    elif test == "tab":
                        got = test_tab(x, t, args, env, extra, args.cols, args.rows, work)
                    elif test == "tab-full":
                        got = test_tab(x, t, args, env, extra, args.cols, args.rows, work, True)
                    elif test == "flood":
                        got = test_flood(x, t, args, env, extra, args.cols, args.rows, work, split)
                    elif test == "idle":
                        got = test_idle(x, t.removesuffix("-x20"), args, env, extra, args.cols,
                                        args.rows, 20 if t.endswith("x20") else 1)
                    elif test == "agents":
                        got = test_agents(x, t.removesuffix("-quiet").removesuffix("-none").removesuffix("-still"),
                                          args, env, extra, args.cols, args.rows, work, not t.endswith("-quiet"),
                                          0 if t.endswith("-none") else args.agents,
                                          split, t, t.endswith("-still"))
                    elif test == "tui":
                        got = test_tui(x, t, args, env, extra, args.cols, args.rows, work)
                    elif test == "paint":
                        got = test_paint(x, t, args, env, extra, args.cols, args.rows)
                    else:
                        raise SystemExit(f"unknown test {test}")
                    s, m = got
                    if s is None:
                        print(f"  {test} {t} run {r + 1}: {m}", file=sys.stderr)
                        continue
                    if test == "agents":
                        samples[t].append(s)
                    else:
                        samples[t] += s
                    missed[t] += m
            if test == "flood":
                results["flood_mb_s_typing_after"] = args.flood_rates
            if test in ("idle", "tui"):
                results["tests"][test] = {t: {"ticks": samples[t]} for t in names}
            elif test == "agents":
                results["tests"][test] = {t: {"ticks": [a for a, _, _ in samples[t]],
                                              "rss_kb": [b for _, b, _ in samples[t]],
                                              "keys_ms": [round(v * 1e3, 3) for _, _, k in samples[t] for v in k]}
                                          for t in names}
            else:
                results["tests"][test] = {t: {"samples_ms": [round(v * 1e3, 3) for v in samples[t]],
                                              "missed": missed[t]} for t in names}
            report(test, samples, missed, args)
            if breakdown:
                results["tests"][test]["tern_breakdown_ms"] = breakdown
                print("  tern, where a key's time goes (ms, p50 / p90 of the keys; TERN_TRACE):")
                for name, v in breakdown.items():
                    print(f"    {name:70s} {pct(v, 0.5):6.2f} / {pct(v, 0.9):6.2f}  n={len(v)}")
    finally:
        xvfb.terminate()
        xvfb.wait()
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)


def report(test, samples, missed, args):
    what = {"keys": "key to screen", "agents": "agents", "tui": "tui", "tab": "Ctrl+Tab to screen (1,000,000-line tab <-> cat)",
            "tab-full": "Ctrl+Tab to screen between two full screens (1,000,000 55-column log lines <-> "
                        "cat below a screen of them)",
            "keys-full": "key to screen, typing over a full screen of log lines",
            "paint": "launch to first visible output", "idle": "idle",
            "flood": "key to screen, four hidden tabs flooding"}[test]
    if test == "agents":
        print(f"agents: {args.agents} hidden tabs of stand-in agents (spinner line 20/s; OSC 2 title with a "
              f"spinner 10/s, -quiet: none), `cat` in view; CPU ticks (1/100 s) in {args.agents_s:g} s, "
              f"RSS at the end, {args.runs} runs:")
        med = {t: pct([a for a, _, _ in s], 0.5) for t, s in samples.items()}
        for t, s in samples.items():
            ratios = "  ".join(f"x{med[t] / med[p]:.2f} of {p}" for p in ("kitty", "tern-quiet", "tern-none")
                               if p != t and med.get(p))
            keys = [v for _, _, k in s for v in k]
            key = f"  keys p50 {pct(keys, 0.5) * 1e3:.1f} p90 {pct(keys, 0.9) * 1e3:.1f} n={len(keys)}" if keys else ""
            print(f"  {t:16s} ticks median {med[t]:6.0f}  samples {' '.join(str(a) for a, _, _ in s):20s}"
                  f" RSS MB {' '.join(f'{b / 1024:.0f}' for _, b, _ in s)}  {ratios}{key}")
        return
    if test == "tui":
        print(f"tui: a stand-in agent in view (spinner line 20/s, title 10/s): CPU ticks (1/100 s) a second, "
              f"over {args.agents_s:g} s, {args.runs} runs:")
        med = {t: pct(s, 0.5) for t, s in samples.items()}
        for t, s in samples.items():
            ratio = f"  x{med[t] / med['kitty']:.2f} of kitty" if med.get("kitty") and t != "kitty" else ""
            print(f"  {t:10s} median {med[t]:5.1f}  samples {' '.join(f'{v:.1f}' for v in s)}{ratio}")
        return
    if test == "idle":
        print(f"idle: CPU ticks (1/100 s) in {args.idle_s:g} s, shells at a prompt, {args.runs} runs:")
        for t, s in samples.items():
            print(f"  {t:10s} median {pct(s, 0.5):5.0f}  samples {' '.join(str(v) for v in s)}")
        return
    print(f"{what}, {args.cols}x{args.rows}, {args.runs} runs (ms):")
    if test == "paint":
        stat = {t: (min(s) if s else float("nan")) for t, s in samples.items()}
        best = min((stat[t] for t in samples if t in GPU_PEERS and samples[t]), default=None)
        for t, s in samples.items():
            ratio = f"  x{stat[t] / best:.2f} of best GPU peer" if best else ""
            print(f"  {t:10s} best {stat[t] * 1e3:7.1f}  samples {' '.join(f'{v * 1e3:.0f}' for v in s)}{ratio}")
        return
    p50 = {t: pct(s, 0.5) for t, s in samples.items()}
    p90 = {t: pct(s, 0.9) for t, s in samples.items()}
    peers = [t for t in samples if t in GPU_PEERS and samples[t]]
    b50 = min((p50[t] for t in peers), default=None)
    b90 = min((p90[t] for t in peers), default=None)
    for t, s in samples.items():
        ratio = f"  x{p50[t] / b50:.2f} / x{p90[t] / b90:.2f} of best GPU peer" if b50 else ""
        print(f"  {t:10s} p50 {p50[t] * 1e3:6.1f}  p90 {p90[t] * 1e3:6.1f}  p99 {pct(s, 0.99) * 1e3:6.1f}"
              f"  n={len(s)} missed={missed[t]}{ratio}")
    if test == "flood":
        print("  hidden tabs' output, all four (MB/s per run: while typing / after):")
        for t, rates in args.flood_rates.items():
            print(f"  {t:10s} " + "  ".join(f"{a:6.1f} / {b:6.1f}" for a, b in rates))


if __name__ == "__main__":
    main()
