"""Entry point of `bazel run //bench:device`; the bench lives in devices/device_bench.py."""

from absl import app

from bench.devices import device_bench

if __name__ == "__main__":
    app.run(device_bench.main)
