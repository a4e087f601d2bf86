"""Public API: the text corpora repository (WORKSPACE) and its pins (bzlmod reuses them)."""

load("//tools/text/private:text_corpora.bzl", _text_corpora = "text_corpora")

text_corpora = _text_corpora

# Debian 12 (bookworm) packages and the texts extracted from them.
TEXT_CORPORA_DEBS = {
    "bible-kjv": ["4.38", "75a49c032a6efa9faa2beb4a9acb70974380122906329d0e100de36cc88ff02d"],
    "bible-kjv-text": ["4.38", "d61b6aad4c51ba9e2800b825325fa6a09e99a0d02a9bb6dc4724fcc4995a1b7a"],
    "r-cran-janeaustenr": ["1.0.0-1", "df6bddf211906d1ff404f8ff662c21b34e6660e7f54a311084e749050c019c95"],
}

TEXT_CORPORA_TEXTS = {
    "emma.txt": "f12316bf0c8b84c2e42ceed5ce68115468680fe1d075dbb3132c34596d99628a",
    "kjv.txt": "58e4107f8a7a8f3d1201f5e4d71102ff1818bf9e8a3a7ce4e7c506b4e243489a",
    "mansfield_park.txt": "d678a6879c3147a0c350137057a9d47e87341206a2dbc25fcf0348d12150b00f",
    "northanger_abbey.txt": "575bb8fcc2fe6d71c0a33f6b5fe071e0b59e23a46343c53f1fb8a94535dfd659",
    "persuasion.txt": "c34e4231331da15a9506e9c0b85d4d7ab7ea124fa373de92b7c3f5c07c7ae711",
    "pride_and_prejudice.txt": "c70e1eaebc27cf3d5e7cdbf10ba55d2fe826ff6bf3ace65f151b93c6cc301c0f",
    "sense_and_sensibility.txt": "d8ba5666775da4c3b4080f967dfe21c95ad09be660796b28c6c24bffdf578598",
}

def text_repositories():
    """Declares @text_corpora."""
    text_corpora(name = "text_corpora", debs = TEXT_CORPORA_DEBS, texts = TEXT_CORPORA_TEXTS)
