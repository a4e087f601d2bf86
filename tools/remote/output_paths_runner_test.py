"""output_paths_runner's protobuf edits, read back by the real protobuf library.

The messages are declared here with REAPI's field numbers (a subset of
build/bazel/remote/execution/v2/remote_execution.proto), so a wrong tag or
length in the runner's hand-written wire format fails to parse or parses
to the wrong values.
"""

from __future__ import annotations

import hashlib
import unittest

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from tools.remote import output_paths_runner as runner


def _messages():
    fdp = descriptor_pb2.FileDescriptorProto(name="reapi_subset.proto", package="reapi", syntax="proto3")
    string, int64, message = (
        descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
        descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
        descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE,
    )
    optional, repeated = (
        descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL,
        descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED,
    )

    def add(name, fields):
        msg = fdp.message_type.add(name=name)
        for number, field, label, kind, type_name in fields:
            f = msg.field.add(name=field, number=number, label=label, type=kind)
            if type_name:
                f.type_name = type_name

    add("Digest", [(1, "hash", optional, string, None), (2, "size_bytes", optional, int64, None)])
    add(
        "Command",
        [
            (1, "arguments", repeated, string, None),
            (3, "output_files", repeated, string, None),
            (4, "output_directories", repeated, string, None),
            (6, "working_directory", optional, string, None),
            (7, "output_paths", repeated, string, None),
        ],
    )
    add(
        "Action",
        [
            (1, "command_digest", optional, message, ".reapi.Digest"),
            (2, "input_root_digest", optional, message, ".reapi.Digest"),
            (7, "do_not_cache", optional, descriptor_pb2.FieldDescriptorProto.TYPE_BOOL, None),
        ],
    )
    pool = descriptor_pool.DescriptorPool()
    pool.Add(fdp)
    get = message_factory.GetMessageClass
    return (get(pool.FindMessageTypeByName(f"reapi.{n}")) for n in ("Digest", "Command", "Action"))


Digest, Command, Action = _messages()


class OutputPathsRunnerTest(unittest.TestCase):
    def test_v2_0_outputs_become_sorted_output_paths(self) -> None:
        command = Command(
            arguments=["python3", "-c", "pass"],
            output_files=["out/b.pte", "out/a.json"],
            output_directories=["out/index.lancedb"],
            working_directory="",
        )
        patched = Command.FromString(runner.with_output_paths(command.SerializeToString()))
        self.assertEqual(list(patched.output_paths), ["out/a.json", "out/b.pte", "out/index.lancedb"])
        # Everything else survives as it was.
        self.assertEqual(list(patched.arguments), ["python3", "-c", "pass"])
        self.assertEqual(list(patched.output_files), ["out/b.pte", "out/a.json"])
        self.assertEqual(list(patched.output_directories), ["out/index.lancedb"])

    def test_v2_1_commands_pass_through(self) -> None:
        command = Command(arguments=["true"], output_paths=["x"], output_files=["x"])
        self.assertIsNone(runner.with_output_paths(command.SerializeToString()))
        self.assertIsNone(runner.with_output_paths(Command(arguments=["true"]).SerializeToString()))

    def test_action_points_at_the_new_command(self) -> None:
        old = Command(arguments=["gcc"], output_files=["a.o"]).SerializeToString()
        new = runner.with_output_paths(old)
        action = Action(
            command_digest=Digest(hash=hashlib.sha256(old).hexdigest(), size_bytes=len(old)),
            input_root_digest=Digest(hash="ab" * 32, size_bytes=77),
            do_not_cache=True,
        )
        patched = Action.FromString(runner.with_command(action.SerializeToString(), new))
        self.assertEqual(patched.command_digest.hash, hashlib.sha256(new).hexdigest())
        self.assertEqual(patched.command_digest.size_bytes, len(new))
        self.assertEqual(patched.input_root_digest, action.input_root_digest)
        self.assertTrue(patched.do_not_cache)
        self.assertEqual(
            runner.read_digest(patched.command_digest.SerializeToString()),
            f"{hashlib.sha256(new).hexdigest()}/{len(new)}",
        )

    def test_large_varints_round_trip(self) -> None:
        for value in (0, 1, 127, 128, 300, 2**31, 2**40 + 5):
            self.assertEqual(runner.read_varint(runner.varint(value), 0), (value, len(runner.varint(value))))


if __name__ == "__main__":
    unittest.main()
