"""bzlmod: the text corpora repository (see repositories.bzl for WORKSPACE)."""

load("//tools/text:repositories.bzl", "text_repositories")

def _text_impl(_module_ctx):
    text_repositories()

text = module_extension(
    implementation = _text_impl,
    doc = "Public-domain texts (Austen, KJV) from pinned Debian packages.",
)
