#!/usr/bin/python3
"""Makes a few system calls directly and prints {name: [return value, errno]} as JSON.

Run under a seccomp filter (seccomp-unit.py) it shows the filter's decision for each: allowed
(the kernel's own answer), refused with an errno, or the process killed with SIGSYS (no output).
"""
import ctypes
import json

import seccomp

CALLS = [
    # V8 at start on CPUs with memory-protection keys. Without `pku` the kernel answers EINVAL.
    ("pkey_alloc", (0, 0)),
    ("pkey_mprotect", (0, 0, 0, 0)),
    ("pkey_free", (15,)),
    # Outside any unit's list (@privileged): harmless here, the path does not exist (ENOENT as root).
    ("swapoff", (b"/nonexistent/payd-probe",)),
]

libc = ctypes.CDLL(None, use_errno=True)
arch = seccomp.Arch()
out = {}
for name, args in CALLS:
    ctypes.set_errno(0)
    result = libc.syscall(seccomp.resolve_syscall(arch, name), *args)
    out[name] = [result, ctypes.get_errno()]
print(json.dumps(out), flush=True)
