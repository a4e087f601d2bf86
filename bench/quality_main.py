"""Entry point of `bazel run //bench:quality`; the bench lives in perplexity/."""

from absl import app

from bench.perplexity import quality_main

if __name__ == "__main__":
    app.run(quality_main.main)
