"""Entry point of `bazel run //bench:peers`; the bench lives in peer_runtimes/."""

from absl import app

from bench.peer_runtimes import peers_main

if __name__ == "__main__":
    app.run(peers_main.main)
