"""Unit tests of parse_build_id: the QAIRT id is found by marker and shape, wherever banners fall."""

load("@bazel_skylib//lib:unittest.bzl", "asserts", "unittest")
load("//tools/qnn/private:build_id.bzl", "parse_build_id")

_ID = "v2.51.0.260929181845"
_BANNER = " # LIBNATIVE: QnnHtp v2.51.0 (loaded)"

def _banner_after_the_id_impl(ctx):
    env = unittest.begin(ctx)
    parsed = parse_build_id("QAIRT_BUILD_ID={}\n{}\n".format(_ID, _BANNER))
    asserts.equals(env, _ID, parsed.build_id)
    asserts.equals(env, 2, parsed.major)
    asserts.equals(env, 51, parsed.minor)
    return unittest.end(env)

def _banner_before_the_id_impl(ctx):
    env = unittest.begin(ctx)
    parsed = parse_build_id("{}\n  QAIRT_BUILD_ID={}  \n".format(_BANNER, _ID))
    asserts.equals(env, _ID, parsed.build_id)
    return unittest.end(env)

def _unmarked_id_is_not_taken_impl(ctx):
    env = unittest.begin(ctx)

    # The old tool's output: a bare id is indistinguishable from a banner line.
    asserts.equals(env, None, parse_build_id("{}\n{}\n".format(_ID, _BANNER)))
    return unittest.end(env)

def _malformed_or_ambiguous_is_none_impl(ctx):
    env = unittest.begin(ctx)
    asserts.equals(env, None, parse_build_id(""))
    asserts.equals(env, None, parse_build_id("QAIRT_BUILD_ID=\n"))
    asserts.equals(env, None, parse_build_id("QAIRT_BUILD_ID=unknown\n"))
    asserts.equals(env, None, parse_build_id("QAIRT_BUILD_ID=v2.x.0\n"))
    asserts.equals(env, None, parse_build_id("QAIRT_BUILD_ID=v2.51.0.1\nQAIRT_BUILD_ID=v2.47.0.1\n"))
    return unittest.end(env)

def _unprefixed_version_impl(ctx):
    env = unittest.begin(ctx)
    parsed = parse_build_id("QAIRT_BUILD_ID=2.37.1.250807093845_124904\n")
    asserts.equals(env, (2, 37), (parsed.major, parsed.minor))
    return unittest.end(env)

banner_after_the_id_test = unittest.make(_banner_after_the_id_impl)
banner_before_the_id_test = unittest.make(_banner_before_the_id_impl)
unmarked_id_is_not_taken_test = unittest.make(_unmarked_id_is_not_taken_impl)
malformed_or_ambiguous_is_none_test = unittest.make(_malformed_or_ambiguous_is_none_impl)
unprefixed_version_test = unittest.make(_unprefixed_version_impl)

def build_id_test_suite(name):
    unittest.suite(
        name,
        banner_after_the_id_test,
        banner_before_the_id_test,
        unmarked_id_is_not_taken_test,
        malformed_or_ambiguous_is_none_test,
        unprefixed_version_test,
    )
