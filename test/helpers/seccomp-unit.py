#!/usr/bin/python3
"""Runs a command under the system call filter a systemd unit file asks for.

    seccomp-unit.py UNIT_FILE COMMAND [ARG...]

Reads the unit's SystemCallFilter= lines (and SystemCallErrorNumber=) the way systemd 252
does, expands every @group with `systemd-analyze syscall-filter` (this machine's systemd,
so the groups are the installed systemd's), installs the filter with libseccomp
(Debian's python3-seccomp) and execs COMMAND. Nothing is skipped: a missing module,
an unknown group or a filter the kernel refuses ends with exit 125 and the reason.

As systemd does (src/core/load-fragment.c, src/shared/seccomp-util.c):
- the first non-empty SystemCallFilter= decides: without `~` it is an allow-list, and
  @default is always added to it; with `~` a deny-list;
- in an allow-list a `~` line removes names, in a deny-list a plain line removes names;
  an empty assignment resets the list;
- `name:errno` sets that name's own errno (deny-lists);
- what the filter refuses kills the process (SIGSYS), or fails with
  SystemCallErrorNumber= when the unit sets one;
- names libseccomp does not know are ignored.
Not done here: the filters systemd adds for other settings (RestrictAddressFamilies=,
RestrictNamespaces=, ...), and SystemCallArchitectures= beyond the native one.
"""
import errno
import os
import subprocess
import sys


def fail(message):
    sys.stderr.write(f"seccomp-unit: {message}\n")
    sys.exit(125)


try:
    import seccomp
except ImportError as err:  # the test must fail, not pass without a filter
    fail(f"python3-seccomp is not installed ({err}); apt-get install python3-seccomp")


def service_settings(path):
    """(key, value) of the [Service] section, in order; continuation lines joined."""
    out, section, pending = [], None, ""
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = pending + raw.strip()
            pending = ""
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            if not line or line[0] in "#;":
                continue
            if line.startswith("["):
                section = line.strip("[]")
            elif section == "Service" and "=" in line:
                key, value = line.split("=", 1)
                out.append((key.strip(), value.strip()))
    return out


_groups = {}


def expand(name):
    """A system call name, or every call of an @group (nested groups expanded)."""
    if not name.startswith("@"):
        return {name}
    if name not in _groups:
        run = subprocess.run(["systemd-analyze", "syscall-filter", name], capture_output=True, text=True)
        if run.returncode != 0:
            fail(f"systemd-analyze syscall-filter {name}: {run.stderr.strip() or run.stdout.strip()}")
        names = set()
        for line in run.stdout.splitlines()[1:]:  # the first line repeats the group's name
            item = line.strip()
            if item and not item.startswith("#"):
                names |= expand(item)
        _groups[name] = names
    return _groups[name]


def errno_number(value):
    if value.isdigit():
        return int(value)
    if not hasattr(errno, value):
        fail(f"unknown errno name {value!r}")
    return getattr(errno, value)


def unit_filter(path):
    """(allow_list, {name: errno or None}, default errno or None)."""
    allow_list, names, default_errno = None, {}, None
    for key, value in service_settings(path):
        if key == "SystemCallErrorNumber":
            default_errno = None if value in ("", "kill") else errno_number(value)
        if key != "SystemCallFilter":
            continue
        if value == "":
            allow_list, names = None, {}
            continue
        invert = value.startswith("~")
        if invert:
            value = value[1:]
        if allow_list is None:
            allow_list = not invert
            if allow_list:
                names.update(dict.fromkeys(expand("@default")))
        for word in value.split():
            word, _, own_errno = word.partition(":")
            for call in expand(word):
                if invert == allow_list:
                    names.pop(call, None)
                else:
                    names[call] = errno_number(own_errno) if own_errno else None
    if allow_list is None:
        fail(f"{path} has no SystemCallFilter=")
    return allow_list, names, default_errno


def main():
    if len(sys.argv) < 3:
        fail("usage: seccomp-unit.py UNIT_FILE COMMAND [ARG...]")
    allow_list, names, default_errno = unit_filter(sys.argv[1])
    refuse = seccomp.KILL_PROCESS if default_errno is None else seccomp.ERRNO(default_errno)
    arch = seccomp.Arch()
    known = [n for n in sorted(names) if seccomp.resolve_syscall(arch, n) != -1]
    try:
        if allow_list:
            f = seccomp.SyscallFilter(refuse)
            for call in known:
                f.add_rule(seccomp.ALLOW, call)
        else:
            f = seccomp.SyscallFilter(seccomp.ALLOW)
            for call in known:
                f.add_rule(refuse if names[call] is None else seccomp.ERRNO(names[call]), call)
        f.load()
    except Exception as err:  # noqa: BLE001 - any failure to install it fails the run
        fail(f"could not install the filter: {err!r}")
    os.execvp(sys.argv[2], sys.argv[2:])


main()
