"""BOS and EOS ids of a Hugging Face tokenizer, as the runners read them from a .pte."""

from __future__ import annotations

import dataclasses
import json

from tools.executorch.export.errors import ExportError

# End-of-document markers of SmolLM2/Qwen and Llama 3. Chat models end a turn
# with eos_token but may also emit one of these; a runner must stop on either.
END_OF_TEXT_TOKENS = ("<|endoftext|>", "<|end_of_text|>")


@dataclasses.dataclass(frozen=True)
class SpecialTokens:
    bos_id: int  # -1 when the tokenizer has no BOS.
    eos_ids: list[int]  # Sorted; empty when it has no EOS.
    has_chat_template: bool

    def runtime_metadata(self, logit_rows: int = 1) -> str:
        """The JSON ExecuTorch's llama export stores as the program's constant methods.

        get_logit_rows appears only in a program whose forward takes the rows
        input (logit_rows/chosen_rows.py); the others keep their bytes.
        """
        metadata = {"get_bos_id": self.bos_id, "get_eos_ids": self.eos_ids}
        if logit_rows > 1:
            metadata["get_logit_rows"] = logit_rows
        return json.dumps(metadata)


def load_special_tokens(tokenizer_json: str, tokenizer_config: str) -> SpecialTokens:
    with open(tokenizer_json) as f:
        added = {t["content"]: t["id"] for t in json.load(f).get("added_tokens", [])}
    with open(tokenizer_config) as f:
        config = json.load(f)

    def token_id(name: str) -> int | None:
        token = config.get(name)
        if token is None:
            return None
        # Newer configs spell a token as an AddedToken record.
        if isinstance(token, dict):
            token = token.get("content")
        if token not in added:
            raise ExportError(
                f"{name} {token!r} in {tokenizer_config} is not a special token of {tokenizer_json}: "
                "give the tokenizer_config.json that belongs to this tokenizer.json"
            )
        return added[token]

    bos = token_id("bos_token")
    eos = token_id("eos_token")
    eos_ids = sorted({eos} | {added[t] for t in END_OF_TEXT_TOKENS if t in added}) if eos is not None else []
    return SpecialTokens(
        bos_id=bos if bos is not None else -1,
        eos_ids=eos_ids,
        has_chat_template=bool(config.get("chat_template")),
    )
