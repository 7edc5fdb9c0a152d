"""Runs a call in a fresh Python and interrupts it, as Ctrl-C in a terminal would."""

import signal
import subprocess
import sys
import textwrap
import time


def interrupt(call: str, wait: float, timeout: float) -> str:
    """Runs ``call`` (a statement, ``rookery`` imported) in a fresh Python, sends it SIGINT
    ``wait`` seconds after it starts, and returns what it printed: "interrupted after N s" when
    the call raised KeyboardInterrupt, "finished" when it ended first."""
    script = textwrap.dedent(
        f"""
        import signal, time, rookery
        # A shell's background job starts with SIGINT ignored, and so does Python then: put
        # back the handler a terminal's Python has, so the test runs the same everywhere.
        signal.signal(signal.SIGINT, signal.default_int_handler)
        start = time.perf_counter()
        print("ready", flush=True)
        try:
            {call}
            print("finished")
        except KeyboardInterrupt:
            print("interrupted after %.1f s" % (time.perf_counter() - start))
        """
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(wait)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=timeout)
    return out
