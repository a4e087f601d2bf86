"""Runs an exported llama .pte with ExecuTorch's Python runtime.

A small, dependency-light session used by `//models:generate` and the tests:
it loads the program (mmap'd by the runtime), prefills the prompt in chunks of
the program's max_seq_len, then decodes one token at a time against the KV
cache held inside the program.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import torch


class PteError(Exception):
    """A problem with the program or the request; the message says what to do."""


@dataclass(frozen=True)
class ProgramLimits:
    max_seq_len: int
    max_context_len: int
    bos_id: int
    eos_ids: tuple[int, ...]


def forward_inputs(tokens: Sequence[int], start: int, takes_rows: bool) -> list[torch.Tensor]:
    """forward's inputs for `tokens` at KV position `start`, asking for the last position's logits.

    A program with get_logit_rows takes a third input, the positions to
    return logits for (tools/executorch/logit_rows/chosen_rows.py).
    """
    inputs = [torch.tensor([list(tokens)], dtype=torch.long), torch.tensor([start], dtype=torch.long)]
    if takes_rows:
        inputs.append(torch.tensor([len(tokens) - 1], dtype=torch.long))
    return inputs


def register_llm_kernels() -> None:
    # Kernels the llama export uses outside the default set: 4-bit embedding
    # lookups and the fused sdpa/update_cache ops.
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401
    import executorch.kernels.quantized  # noqa: F401


class PteSession:
    """One loaded program plus its tokenizer."""

    def __init__(
        self,
        pte_path: str,
        tokenizer_json: str,
        tokenizer_config: str | None = None,
        computed_by: Callable[[Sequence[int], int], torch.Tensor] | None = None,
    ) -> None:
        """`computed_by(tokens, start)`, when given, computes forward in place of the program's own method.

        It is for a program whose forward this host cannot run, such as a QNN
        program scored through the quantized graph it was lowered from
        (qnn_recipe/rebuilt_graph.py): the program then gives only its
        limits and constants, and its forward method is never loaded.
        """
        from executorch.runtime import Runtime
        from tokenizers import Tokenizer

        register_llm_kernels()
        try:
            self._program = Runtime.get().load_program(pte_path)
        except Exception as e:  # the runtime raises bare RuntimeErrors
            raise PteError(f"cannot load {pte_path}: {e}; rebuild it with bazel build") from e
        self._computed_by = computed_by
        self._forward = None if computed_by else self._program.load_method("forward")
        self._takes_rows = "get_logit_rows" in self._program.method_names
        # The token input's upper bound is the real prefill chunk; the
        # exporter's dynamic dimension stops one short of get_max_seq_len().
        chunk = self._program.metadata("forward").input_tensor_meta(0).sizes()[-1]
        self.limits = ProgramLimits(
            max_seq_len=min(chunk, self._constant("get_max_seq_len")),
            max_context_len=self._constant("get_max_context_len"),
            bos_id=self._constant("get_bos_id", -1),
            eos_ids=tuple(self._constants("get_eos_ids")),
        )
        self.tokenizer = Tokenizer.from_file(tokenizer_json)
        self._chat_template = None
        self._special_tokens: dict[str, str] = {}
        if tokenizer_config:
            with open(tokenizer_config) as f:
                config = json.load(f)
            self._chat_template = config.get("chat_template")
            # Templates write these by name (Llama 3's opens with bos_token).
            self._special_tokens = {k: config.get(k) or "" for k in ("bos_token", "eos_token")}

    def _constants(self, name: str) -> list[int]:
        if name not in self._program.method_names:
            return []
        return [int(v) for v in self._program.load_method(name).execute([])]

    def _constant(self, name: str, default: int | None = None) -> int:
        values = self._constants(name)
        if not values:
            if default is None:
                raise PteError(f"program has no {name}() method: was it exported by executorch_pte?")
            return default
        return values[0]

    def chat_prompt(self, user_message: str) -> str:
        """The prompt text for one user turn, through the model's chat template."""
        if not self._chat_template:
            return user_message
        import jinja2

        template = jinja2.Environment(trim_blocks=True, lstrip_blocks=True).from_string(self._chat_template)
        return template.render(
            messages=[{"role": "user", "content": user_message}],
            add_generation_prompt=True,
            tools=None,
            **self._special_tokens,
        )

    def encode(self, text: str) -> list[int]:
        return self.tokenizer.encode(text, add_special_tokens=False).ids

    def decode(self, ids: Sequence[int]) -> str:
        return self.tokenizer.decode(list(ids), skip_special_tokens=False)

    def forward(self, tokens: Sequence[int], start: int) -> torch.Tensor:
        """Feeds `tokens` at KV-cache position `start`; returns the last position's logits."""
        if self._computed_by:
            return self._computed_by(tokens, start)
        outputs = self._forward.execute(forward_inputs(tokens, start, self._takes_rows))
        logits = outputs[0]
        return logits.reshape(-1, logits.shape[-1])[-1]

    def prefill(self, prompt_ids: Sequence[int]) -> torch.Tensor:
        """Feeds the prompt; returns the logits of its last position."""
        if not prompt_ids:
            raise PteError("empty prompt: give at least one token")
        if len(prompt_ids) >= self.limits.max_context_len:
            raise PteError(
                f"prompt is {len(prompt_ids)} tokens but the program's context is {self.limits.max_context_len}: "
                "shorten the prompt or export with a larger max_context_len"
            )
        logits = None
        for start in range(0, len(prompt_ids), self.limits.max_seq_len):
            logits = self.forward(prompt_ids[start : start + self.limits.max_seq_len], start)
        return logits

    def generate(self, prompt_ids: Sequence[int], max_new_tokens: int, stop_at_eos: bool = True) -> Iterator[int]:
        """Greedy decoding; yields each new token as soon as it is known."""
        logits = self.prefill(prompt_ids)
        pos = len(prompt_ids)
        for _ in range(max_new_tokens):
            token = int(torch.argmax(logits))
            yield token
            if (stop_at_eos and token in self.limits.eos_ids) or pos + 1 >= self.limits.max_context_len:
                return
            logits = self.forward([token], pos)
            pos += 1

    def greedy(
        self, prompt_ids: Sequence[int], max_new_tokens: int, on_token: Callable[[int], None] | None = None
    ) -> list[int]:
        out = []
        for token in self.generate(prompt_ids, max_new_tokens):
            out.append(token)
            if on_token:
                on_token(token)
        return out
