"""rag_index: documents -> chunks -> embeddings -> a flat index and a LanceDB table."""

load("//tools/executorch:defs.bzl", "PteInfo")
load("//tools/python:action_env.bzl", "NO_NETWORK", "PYTHON_ACTION_ENV")
load(":providers.bzl", "RagIndexInfo")

VECTOR_DTYPES = ["fp32", "fp16", "int8"]
MAX_CHUNK_TOKENS = 256  # all-MiniLM-L6-v2's sequence limit, [CLS] and [SEP] included

def _check_attrs(ctx):
    attrs = ctx.attr
    if attrs.vector_dtype not in VECTOR_DTYPES:
        fail("rag_index {}: unknown vector_dtype \"{}\"; choose one of {}".format(ctx.label, attrs.vector_dtype, VECTOR_DTYPES))
    if attrs.chunk_tokens < 16 or attrs.chunk_tokens > MAX_CHUNK_TOKENS:
        fail("rag_index {}: chunk_tokens = {} is outside [16, {}] (the embedder's limit, special tokens included)".format(
            ctx.label,
            attrs.chunk_tokens,
            MAX_CHUNK_TOKENS,
        ))
    if attrs.overlap_tokens < 0 or 2 * attrs.overlap_tokens >= attrs.chunk_tokens - 2:
        fail("rag_index {}: overlap_tokens = {} must be >= 0 and under half of chunk_tokens - 2 ({})".format(
            ctx.label,
            attrs.overlap_tokens,
            (attrs.chunk_tokens - 2) // 2,
        ))
    if not ctx.files.docs:
        fail("rag_index {}: `docs` is empty; give at least one UTF-8 text file".format(ctx.label))

def _embedder(ctx):
    """The embedder's PteInfo: its program, manifest and tokenizer."""
    info = ctx.attr.embedder[PteInfo]
    if info.kind != "sentence_encoder":
        fail("rag_index {}: `embedder` {} is an {} program; give an executorch_pte of a sentence_encoder (e.g. //models:minilm_l6_int8)".format(
            ctx.label,
            ctx.attr.embedder.label,
            info.kind,
        ))
    return info

def _document_names(ctx):
    # Documents are named by file name in the index and in answers' sources;
    # two with the same name would be indistinguishable there.
    names = {}
    for doc in ctx.files.docs:
        if doc.basename in names:
            fail("rag_index {}: two documents are named {} ({} and {}); rename one".format(
                ctx.label,
                doc.basename,
                names[doc.basename].short_path,
                doc.short_path,
            ))
        names[doc.basename] = doc
    return [(name, names[name]) for name in sorted(names)]

def _rag_index_impl(ctx):
    _check_attrs(ctx)
    embedder = _embedder(ctx)
    pte = embedder.pte
    vocab = ctx.file.vocab
    work = ctx.label.name + "_chunks/"
    chunk_files, vector_files, documents = [], [], []

    # One chunking and one embedding action per document, so that editing a
    # document re-embeds that document only.
    embed_runfiles = ctx.attr._embed[DefaultInfo].default_runfiles.files
    for name, doc in _document_names(ctx):
        texts = ctx.actions.declare_file(work + name + ".texts.jsonl")
        chunks = ctx.actions.declare_file(work + name + ".chunks.json")
        vectors = ctx.actions.declare_file(work + name + ".f32")
        args = ctx.actions.args()
        args.add("--document", doc)
        args.add("--name", name)

        # The embedder's own tokenizer counts the tokens, so that swapping the
        # encoder can never chunk by another one's.
        args.add("--tokenizer", embedder.tokenizer)
        args.add("--chunk_tokens", ctx.attr.chunk_tokens)
        args.add("--overlap_tokens", ctx.attr.overlap_tokens)
        args.add("--out_texts", texts)
        args.add("--out_chunks", chunks)
        ctx.actions.run(
            executable = ctx.executable._chunker,
            arguments = [args],
            inputs = [doc, embedder.tokenizer],
            outputs = [texts, chunks],
            env = PYTHON_ACTION_ENV,
            execution_requirements = NO_NETWORK,
            mnemonic = "RagChunk",
            progress_message = "Chunking {} for {}".format(name, ctx.label),
        )
        ctx.actions.run(
            executable = ctx.executable._embed,
            arguments = [
                "--pte=" + pte.path,
                "--vocab=" + vocab.path,
                "--input=" + texts.path,
                "--output=" + vectors.path,
                # A fixed count, not the host's: the vectors (and so the
                # index bytes) must not depend on the machine that builds.
                "--threads=2",
            ],
            # With its runfiles: embed finds ExecuTorch's shared libraries
            # through a RUNPATH into bin/_solib_*, which a remote worker has
            # only when they are inputs.
            inputs = depset([pte, vocab, texts], transitive = [embed_runfiles]),
            outputs = [vectors],
            execution_requirements = NO_NETWORK,
            mnemonic = "RagEmbed",
            progress_message = "Embedding {} for {}".format(name, ctx.label),
        )
        chunk_files.append(chunks)
        vector_files.append(vectors)
        documents.append(doc)

    flat = ctx.actions.declare_file(ctx.label.name + ".flat")
    lancedb = ctx.actions.declare_directory(ctx.label.name + ".lancedb")
    args = ctx.actions.args()
    args.add(ctx.file._write_index)
    args.add_all("--chunks", chunk_files)
    args.add_all("--vectors", vector_files)
    args.add_all("--documents", documents)
    args.add("--embedder", pte)
    args.add("--embedder_manifest", embedder.manifest)
    args.add("--vector_dtype", ctx.attr.vector_dtype)
    args.add("--out_flat", flat)
    args.add("--out_lancedb", lancedb.path)

    # RUST_LOG quiets LanceDB's deprecation warnings.
    env = dict(PYTHON_ACTION_ENV, RUST_LOG = "error")

    # write_index.py imports the rag package from the root of the repository
    # that holds it: this one, or external/<name> where another module calls us.
    env["PYTHONPATH"] = ctx.file._write_index.owner.workspace_root or "."
    ctx.actions.run(
        executable = ctx.executable._rag_python,
        arguments = [args],
        inputs = ctx.files._writer_srcs + chunk_files + vector_files + documents + [pte, embedder.manifest],
        outputs = [flat, lancedb],
        env = env,
        execution_requirements = NO_NETWORK,
        mnemonic = "RagIndex",
        progress_message = "Writing the flat index and LanceDB table of {}".format(ctx.label),
    )
    files = [flat, lancedb]
    return [
        DefaultInfo(files = depset(files), runfiles = ctx.runfiles(files = files)),
        RagIndexInfo(
            flat = flat,
            lancedb = lancedb,
            embedder = pte,
            vocab = vocab,
            vector_dtype = ctx.attr.vector_dtype,
        ),
        OutputGroupInfo(
            flat = depset([flat]),
            lancedb = depset([lancedb]),
            vectors = depset(vector_files),
            chunks = depset(chunk_files),
        ),
    ]

rag_index = rule(
    implementation = _rag_index_impl,
    doc = """A retrieval index over text documents: `<name>.flat` (the device's
mmap-able index) and `<name>.lancedb/` (a LanceDB table for the host), both
byte-reproducible and recording the embedder's sha256.

Documents are UTF-8 text with paragraphs separated by blank lines; they are
chunked by paragraphs within `chunk_tokens` WordPiece tokens, consecutive
chunks sharing up to `overlap_tokens` (see rag/index/chunking.py).""",
    attrs = {
        "docs": attr.label_list(allow_files = True, mandatory = True, doc = "UTF-8 text files."),
        "embedder": attr.label(mandatory = True, providers = [PteInfo], doc = "The sentence embedder: an `executorch_pte` of a `sentence_encoder`."),
        "vocab": attr.label(mandatory = True, allow_single_file = True, doc = "The embedder's compiled WordPiece tokenizer (a `wordpiece_vocab` target), for the embed tool."),
        "vector_dtype": attr.string(default = "int8", doc = "How the flat index stores vectors: int8 (per-vector scale), fp16 or fp32."),
        "chunk_tokens": attr.int(default = 256, doc = "Chunk budget in WordPiece tokens, [CLS] and [SEP] included (<= 256; 256 retrieved best of 64/128/256 on bench/rag)."),
        "overlap_tokens": attr.int(default = 32, doc = "Tokens a chunk repeats from the end of the previous one."),
        "_chunker": attr.label(default = Label("//rag/index:chunk_document"), executable = True, cfg = "exec"),
        "_embed": attr.label(default = Label("//rag/runtime:embed"), executable = True, cfg = "exec"),
        "_rag_python": attr.label(default = Label("@pypi_rag//:action_python3"), executable = True, allow_single_file = True, cfg = "exec"),
        "_write_index": attr.label(default = Label("//rag/index:write_index.py"), allow_single_file = True),
        "_writer_srcs": attr.label(default = Label("//rag/index:write_index_srcs")),
    },
)
