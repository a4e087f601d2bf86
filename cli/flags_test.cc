#include "cli/flags.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llm::cli {
namespace {

struct Parsed {
  bool ok;
  std::string error;
  FlagSet flags{"tool", "usage: tool\n"};
};

Parsed Parse(std::vector<std::string> args) {
  Parsed out;
  out.flags.Value("model").Value("threads").Bool("warmup").Bool("interactive");
  std::vector<char*> argv = {const_cast<char*>("tool")};
  for (auto& a : args) argv.push_back(a.data());
  out.ok =
      out.flags.Parse(static_cast<int>(argv.size()), argv.data(), &out.error);
  return out;
}

TEST(FlagSet, BothValueSpellingsAndBooleans) {
  Parsed p = Parse(
      {"--model=a.pte", "--threads", "2", "--warmup", "--interactive=false"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.flags.Get("model"), "a.pte");
  EXPECT_EQ(p.flags.Get("threads"), "2");
  EXPECT_TRUE(p.flags.On("warmup"));
  EXPECT_FALSE(p.flags.On("interactive", true));
  EXPECT_FALSE(p.flags.Has("missing"));
  double threads = 0;
  std::string error;
  EXPECT_TRUE(p.flags.Number("threads", 0, &threads, &error));
  EXPECT_EQ(threads, 2);
}

TEST(FlagSet, AValueMayStartWithDashes) {
  // A value flag takes the next argument whatever it looks like, as
  // `--system "-- be brief"` means.
  Parsed p = Parse({"--model", "--odd-name.pte"});
  ASSERT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.flags.Get("model"), "--odd-name.pte");
}

TEST(FlagSet, HelpWinsOverBadFlags) {
  for (const char* help : {"--help", "-h"}) {
    Parsed p = Parse({"--nonsense", help});
    EXPECT_TRUE(p.ok) << help;
    EXPECT_TRUE(p.flags.help());
  }
}

TEST(FlagSet, BadInputIsNamed) {
  EXPECT_NE(Parse({"--modle=x"}).error.find("unknown flag --modle"),
            std::string::npos);
  EXPECT_NE(Parse({"--model"}).error.find("--model needs a value"),
            std::string::npos);
  EXPECT_NE(Parse({"--warmup=maybe"}).error.find("on or off"),
            std::string::npos);
  EXPECT_NE(Parse({"stray"}).error.find("unexpected argument 'stray'"),
            std::string::npos);
  Parsed p = Parse({"--threads=two"});
  ASSERT_TRUE(p.ok);
  double threads = 0;
  std::string error;
  EXPECT_FALSE(p.flags.Number("threads", 0, &threads, &error));
  EXPECT_NE(error.find("--threads=two is not a number"), std::string::npos);
}

TEST(FlagSet, IntegersAreWholeAndInRange) {
  int64_t threads = -1;
  std::string error;
  Parsed given = Parse({"--threads=3"});
  EXPECT_TRUE(given.flags.Integer("threads", 0, 0, 8, &threads, &error));
  EXPECT_EQ(threads, 3);
  Parsed absent = Parse({});
  EXPECT_TRUE(absent.flags.Integer("threads", 5, 0, 8, &threads, &error));
  EXPECT_EQ(threads, 5);
  for (const auto& [arg, phrase] :
       std::vector<std::pair<std::string, std::string>>{
           {"--threads=1.5", "--threads=1.5 is not a whole number"},
           {"--threads=2x", "--threads=2x is not a whole number"},
           {"--threads=-1", "--threads=-1 is out of range"},
           {"--threads=9", "--threads=9 is out of range"},
           {"--threads=99999999999999999999", "is out of range"}}) {
    Parsed p = Parse({arg});
    ASSERT_TRUE(p.ok) << arg;
    error.clear();
    threads = 7;
    EXPECT_FALSE(p.flags.Integer("threads", 0, 0, 8, &threads, &error)) << arg;
    EXPECT_NE(error.find(phrase), std::string::npos) << error;
    EXPECT_NE(error.find("give a whole number from 0 to 8"), std::string::npos)
        << error;
    EXPECT_EQ(threads, 7) << "a refused value must not be stored";
  }
}

TEST(FlagSet, PositionalsAndRepeatedFlagsKeepTheirOrder) {
  FlagSet flags("tool", "usage\n");
  flags.Value("model").Repeated("user").Repeated("system").Positionals(
      1, "command");
  std::vector<std::string> args = {"tool",     "--user=a", "encode",
                                   "--system", "b",        "--user=c"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  std::string error;
  ASSERT_TRUE(flags.Parse(static_cast<int>(argv.size()), argv.data(), &error))
      << error;
  EXPECT_EQ(flags.positionals(), std::vector<std::string>{"encode"});
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(flags.ordered(),
            (std::vector<Pair>{{"user", "a"}, {"system", "b"}, {"user", "c"}}));

  FlagSet one("tool", "usage\n");
  one.Positionals(1, "question (quote it)");
  std::vector<std::string> two = {"tool", "why", "now"};
  std::vector<char*> argv2;
  for (auto& a : two) argv2.push_back(a.data());
  EXPECT_FALSE(one.Parse(3, argv2.data(), &error));
  EXPECT_EQ(error, "give one question (quote it): unexpected 'now'");
}

}  // namespace
}  // namespace llm::cli
