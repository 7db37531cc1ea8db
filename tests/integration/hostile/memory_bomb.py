"""Hostile: allocates memory until something gives (expect: killed, memory limit).

`bytes(n)` asks for zeroed memory straight from the kernel, so the bomb reaches
the address-space limit at once instead of spending its move writing pages.
"""

hoard = []


def act(view, legal):
    while True:
        hoard.append(bytes(64 << 20))
