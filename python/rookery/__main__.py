"""``python -m rookery``: the strong engine over UCI on standard input and output, so that
``chess.engine.SimpleEngine.popen_uci([sys.executable, "-m", "rookery"])`` works wherever the
package is installed."""

from rookery._rookery import uci_loop

if __name__ == "__main__":
    uci_loop()
