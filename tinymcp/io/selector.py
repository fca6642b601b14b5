"""The loop's poller where ``poll()`` cannot serve (macOS, which cannot poll terminals, and
systems without it): ``selectors``' default, used as ``poll()`` is. Loaded there alone."""

import selectors

READ, WRITE = 1, 4  # (``poll()``'s POLLIN and POLLOUT, as io.loop registers them)


class Selector:
    """``selectors.DefaultSelector`` as ``poll()`` is used here: ``poll(ms)`` -> ``[(fd, events)]``."""

    def __init__(self):
        self.selector = selectors.DefaultSelector()
        self.close = self.selector.close

    def register(self, fd, mask):
        if mask:  # (nothing for a hang-up alone: kqueue cannot watch for it without reading)
            self.selector.register(fd, (1 if mask & READ else 0) | (2 if mask & WRITE else 0))

    def unregister(self, fd):
        if fd in self.selector.get_map():
            self.selector.unregister(fd)

    def modify(self, fd, mask):
        self.unregister(fd)
        self.register(fd, mask)

    def poll(self, ms):
        return [(key.fd, (READ if events & 1 else 0) | (WRITE if events & 2 else 0))
                for key, events in self.selector.select(None if ms is None else ms / 1000.0)]
