#!/usr/bin/env python3
"""Drives a command in a real pseudo-terminal, the way a person at a keyboard would.

Usage: python3 pty_driver.py SCENARIO.json

SCENARIO.json: {"argv": [...], "cwd": "...", "env": {...}, "cols": 100, "rows": 40,
                "steps": [...], "timeout": 30}
Each step is one of:
  {"expect": "regex"}           wait until the rendered screen (scrollback included) matches
  {"expect_raw": "regex"}       wait until the raw output matches
  {"send": "text"}              type text ("\\r" is Enter, "\\u0003" Ctrl+C, "\\u0004" Ctrl+D)
  {"sleep": 0.2}                wait
  {"snapshot": "name"}          record the rendered screen
  {"touch": "name"}             create the file "name" in cwd (a gate a test's tool waits for)
  {"signal": "SIGTERM"}         send the process a signal, as `timeout` or `docker stop` would
  {"wait_exit": true}           wait for the process to exit
  {"hangup": true}              close the terminal, as closing its window does (the kernel sends the
                                program SIGHUP; its reads and writes fail with EIO), and wait for the
                                program to exit; the screen stays as it was, and no step may follow
Optional per step: "timeout" (seconds, default 60: a guard against a hang on a busy machine).

Prints one JSON object: {"ok", "error", "step", "exit_code", "screen", "raw", "snapshots"}.
"screen" is what the terminal shows (scrollback included) after a small VT100 emulation:
enough for readline and the bosun chat (cursor moves, erase, autowrap), no colours.
Standard library only (pty, os, select): no tmux, no pexpect.
"""
import codecs
import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time


class Terminal:
    """A tiny terminal: an unbounded list of rows, a cursor, autowrap; the visible screen is the last `rows` rows."""

    def __init__(self, cols, rows):
        self.cols, self.rows = cols, rows
        self.lines = [[]]
        self.row = 0
        self.col = 0
        self.wrap_pending = False
        self.state = None  # None, 'esc', 'csi', 'osc'
        self.params = ''

    def top(self):
        return max(0, len(self.lines) - self.rows)

    def ensure_row(self, row):
        while len(self.lines) <= row:
            self.lines.append([])

    def put(self, ch):
        if self.wrap_pending:
            self.row += 1
            self.col = 0
            self.wrap_pending = False
        self.ensure_row(self.row)
        line = self.lines[self.row]
        while len(line) < self.col:
            line.append(' ')
        if self.col < len(line):
            line[self.col] = ch
        else:
            line.append(ch)
        if self.col == self.cols - 1:
            self.wrap_pending = True
        else:
            self.col += 1

    def feed(self, text):
        for ch in text:
            if self.state == 'esc':
                if ch == '[':
                    self.state, self.params = 'csi', ''
                elif ch == ']':
                    self.state = 'osc'
                else:
                    self.state = None
            elif self.state == 'csi':
                if '0' <= ch <= '9' or ch in ';?':
                    self.params += ch
                else:
                    self.csi(ch, self.params)
                    self.state = None
            elif self.state == 'osc':
                if ch == '\x07':
                    self.state = None
            elif ch == '\x1b':
                self.state = 'esc'
            elif ch == '\r':
                self.col, self.wrap_pending = 0, False
            elif ch == '\n':
                self.row += 1
                self.wrap_pending = False
                self.ensure_row(self.row)
            elif ch == '\b':
                self.col, self.wrap_pending = max(0, self.col - 1), False
            elif ch == '\t':
                self.col = min(self.cols - 1, (self.col // 8 + 1) * 8)
            elif ch == '\x07' or ord(ch) < 0x20:
                pass
            else:
                self.put(ch)

    def csi(self, final, params):
        private = params.startswith('?')
        nums = [int(p) if p.isdigit() else None for p in params.lstrip('?').split(';')] if params else []
        n = nums[0] if nums and nums[0] is not None else None
        if private:
            return
        self.wrap_pending = False
        if final == 'A':
            self.row = max(self.top(), self.row - (n or 1))
        elif final == 'B':
            self.row += n or 1
            self.ensure_row(self.row)
        elif final == 'C':
            self.col = min(self.cols - 1, self.col + (n or 1))
        elif final == 'D':
            self.col = max(0, self.col - (n or 1))
        elif final == 'G':
            self.col = min(self.cols - 1, max(0, (n or 1) - 1))
        elif final in 'Hf':
            r = (nums[0] or 1) if nums else 1
            c = (nums[1] or 1) if len(nums) > 1 else 1
            self.row = self.top() + r - 1
            self.col = c - 1
            self.ensure_row(self.row)
        elif final == 'J':
            mode = n or 0
            self.ensure_row(self.row)
            if mode == 0:
                del self.lines[self.row][self.col:]
                del self.lines[self.row + 1:]
            elif mode == 2:
                for r in range(self.top(), len(self.lines)):
                    self.lines[r] = []
        elif final == 'K':
            mode = n or 0
            self.ensure_row(self.row)
            line = self.lines[self.row]
            if mode == 0:
                del line[self.col:]
            elif mode == 1:
                for i in range(min(self.col + 1, len(line))):
                    line[i] = ' '
            elif mode == 2:
                self.lines[self.row] = []
        # m (colours), h/l (modes) and the rest change nothing we render

    def text(self):
        out = [''.join(line).rstrip() for line in self.lines]
        while out and out[-1] == '':
            out.pop()
        return '\n'.join(out)


def main():
    scenario = json.load(open(sys.argv[1]))
    cols, rows = scenario.get('cols', 100), scenario.get('rows', 40)
    env = dict(os.environ)
    env.update(scenario.get('env', {}))
    for key, value in list(env.items()):
        if value is None:
            del env[key]
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(scenario.get('cwd', '.'))
        os.execvpe(scenario['argv'][0], scenario['argv'], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))
    os.kill(pid, signal.SIGWINCH)

    term = Terminal(cols, rows)
    raw = []
    # Incremental: a character split across two reads must not become two replacement characters.
    decoder = codecs.getincrementaldecoder('utf-8')('replace')
    exit_code = None
    snapshots = {}
    result = {'ok': True, 'error': None, 'step': None}

    hung_up = False

    def pump(wait):
        nonlocal exit_code
        ready, _, _ = select.select([] if hung_up else [fd], [], [], wait)
        if ready:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b''
            if data:
                text = decoder.decode(data)
                raw.append(text)
                term.feed(text)
                return True
        if exit_code is None:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                exit_code = os.waitstatus_to_exitcode(status)
        return False

    deadline_total = time.time() + scenario.get('timeout', 60)
    for index, step in enumerate(scenario['steps']):
        result['step'] = index
        timeout = step.get('timeout', 60)
        deadline = min(time.time() + timeout, deadline_total)
        if 'send' in step:
            os.write(fd, step['send'].encode('utf-8'))
            pump(0.02)
        elif 'sleep' in step:
            end = time.time() + step['sleep']
            while time.time() < end:
                pump(max(0.0, min(0.05, end - time.time())))
        elif 'touch' in step:
            open(os.path.join(scenario['cwd'], step['touch']), 'a').close()
        elif 'signal' in step:
            os.kill(pid, getattr(signal, step['signal']))
            pump(0.02)
        elif 'snapshot' in step:
            while pump(0.05):
                pass
            snapshots[step['snapshot']] = term.text()
        elif 'expect' in step or 'expect_raw' in step:
            pattern = re.compile(step.get('expect') or step.get('expect_raw'), re.S)
            while True:
                haystack = term.text() if 'expect' in step else ''.join(raw)
                if pattern.search(haystack):
                    break
                if time.time() > deadline:
                    result.update(ok=False, error='timed out waiting for %r' % pattern.pattern)
                    break
                pump(0.05)
        elif step.get('hangup'):
            while pump(0.05):
                pass
            os.close(fd)
            hung_up = True
            while exit_code is None and time.time() < deadline:
                pump(0.05)
            if exit_code is None:
                result.update(ok=False, error='the process did not exit after the hangup')
        elif step.get('wait_exit'):
            while exit_code is None and time.time() < deadline:
                pump(0.05)
            if exit_code is None:
                result.update(ok=False, error='the process did not exit')
        if not result['ok']:
            break

    if exit_code is None:
        end = time.time() + (0.5 if result['ok'] else 0.2)
        while exit_code is None and time.time() < end:
            pump(0.05)
    if exit_code is None:
        os.kill(pid, signal.SIGKILL)
        # Reaped here: the reads below must not wait for it again (waitpid would raise ECHILD, and
        # the scenario's result, with its screen, would be lost).
        exit_code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    # Read what is left: the process may have written its last bytes just before the exit was
    # noticed. Once it has exited, a read returns what is buffered, then fails (EIO): the end.
    while pump(0.05):
        pass
    result.update(exit_code=exit_code, screen=term.text(), raw=''.join(raw), snapshots=snapshots)
    print(json.dumps(result))


if __name__ == '__main__':
    main()
