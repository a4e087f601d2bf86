// JNI entry points of dev.llmondevice.chat.engine.NativeLlm (the app's
// LlmEngine calls these; android_app/src/main/kotlin/.../engine/NativeLlm.kt
// declares them). A chat session lives behind a jlong handle that Kotlin
// owns: open() hands it out, close() destroys it. Errors become Kotlin
// exceptions carrying the runtime's message; nothing here aborts the process.
#include <jni.h>

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/jni/utf16.h"
#include "runtime/session/chat_session.h"

namespace {

constexpr char kLlmException[] = "dev/llmondevice/chat/engine/LlmException";
constexpr char kModelLoadException[] =
    "dev/llmondevice/chat/engine/ModelLoadException";

#ifndef LLM_EXECUTORCH_VERSION
#define LLM_EXECUTORCH_VERSION "unknown"
#endif

void Throw(JNIEnv* env, const char* class_name, const std::string& message) {
  if (env->ExceptionCheck()) return;  // keep the first exception
  jclass type = env->FindClass(class_name);
  if (type == nullptr) return;  // FindClass has thrown NoClassDefFoundError
  env->ThrowNew(type, message.c_str());
  env->DeleteLocalRef(type);
}

// JNI's GetStringUTFChars/NewStringUTF use modified UTF-8, which mangles
// emoji; go through the string's UTF-16 instead.
std::string ToUtf8(JNIEnv* env, jstring text) {
  if (text == nullptr) return "";
  const jsize length = env->GetStringLength(text);
  std::u16string units(static_cast<size_t>(length), u'\0');
  static_assert(sizeof(jchar) == sizeof(char16_t), "jchar is UTF-16");
  env->GetStringRegion(text, 0, length, reinterpret_cast<jchar*>(&units[0]));
  return llm::Utf16ToUtf8(units);
}

jstring ToJavaString(JNIEnv* env, const std::string& utf8) {
  const std::u16string units = llm::Utf8ToUtf16(utf8);
  return env->NewString(reinterpret_cast<const jchar*>(units.data()),
                        static_cast<jsize>(units.size()));
}

llm::ChatSession* FromHandle(JNIEnv* env, jlong handle) {
  auto* session = reinterpret_cast<llm::ChatSession*>(handle);
  if (session == nullptr) {
    Throw(env, "java/lang/IllegalStateException",
          "the engine is closed: call load() again");
  }
  return session;
}

}  // namespace

extern "C" {

JNIEXPORT jstring JNICALL
Java_dev_llmondevice_chat_engine_NativeLlm_executorchVersion(JNIEnv* env,
                                                             jclass) {
  return ToJavaString(env, LLM_EXECUTORCH_VERSION);
}

JNIEXPORT jlong JNICALL Java_dev_llmondevice_chat_engine_NativeLlm_open(
    JNIEnv* env, jclass, jstring pte_path, jlong pte_offset, jlong pte_length,
    jstring manifest_path, jstring tokenizer_path, jint threads,
    jboolean warmup) {
  llm::ChatOptions options;
  options.program.pte_path = ToUtf8(env, pte_path);
  options.program.pte_offset = static_cast<uint64_t>(pte_offset);
  options.program.pte_length = static_cast<uint64_t>(pte_length);
  // An APK asset has no file beside it to find: the app passes the
  // manifest's path explicitly.
  options.program.integrity.manifest_path = ToUtf8(env, manifest_path);
  options.tokenizer_path = ToUtf8(env, tokenizer_path);
  options.threads = threads > 0 ? static_cast<uint32_t>(threads) : 0;
  options.warmup = warmup == JNI_TRUE;
  std::string error;
  std::unique_ptr<llm::ChatSession> session =
      llm::ChatSession::Open(options, &error);
  if (!session) {
    Throw(env, kModelLoadException, error);
    return 0;
  }
  // Ownership passes to Kotlin, which returns it through close().
  return reinterpret_cast<jlong>(session.release());
}

JNIEXPORT void JNICALL Java_dev_llmondevice_chat_engine_NativeLlm_close(
    JNIEnv*, jclass, jlong handle) {
  std::unique_ptr<llm::ChatSession> owned(
      reinterpret_cast<llm::ChatSession*>(handle));
}

JNIEXPORT void JNICALL Java_dev_llmondevice_chat_engine_NativeLlm_reset(
    JNIEnv* env, jclass, jlong handle) {
  if (llm::ChatSession* session = FromHandle(env, handle)) session->Reset();
}

JNIEXPORT void JNICALL Java_dev_llmondevice_chat_engine_NativeLlm_stop(
    JNIEnv* env, jclass, jlong handle) {
  if (llm::ChatSession* session = FromHandle(env, handle)) {
    session->RequestStop();
  }
}

// {max_seq_len, max_context_len, vocab_size, threads, load_ms*1000,
//  warmup_ms*1000}: fixed at load.
JNIEXPORT jlongArray JNICALL Java_dev_llmondevice_chat_engine_NativeLlm_limits(
    JNIEnv* env, jclass, jlong handle) {
  llm::ChatSession* session = FromHandle(env, handle);
  if (session == nullptr) return nullptr;
  const jlong values[] = {
      session->limits().max_seq_len,
      session->limits().max_context_len,
      session->limits().vocab_size,
      static_cast<jlong>(session->threads()),
      static_cast<jlong>(session->load_ms() * 1000),
      static_cast<jlong>(session->warmup_ms() * 1000),
  };
  const jsize count = sizeof(values) / sizeof(values[0]);
  jlongArray out = env->NewLongArray(count);
  if (out != nullptr) env->SetLongArrayRegion(out, 0, count, values);
  return out;
}

// Streams tokens into sink.onToken(id, text) and returns the stats JSON.
JNIEXPORT jstring JNICALL Java_dev_llmondevice_chat_engine_NativeLlm_generate(
    JNIEnv* env, jclass, jlong handle, jobjectArray roles,
    jobjectArray contents, jint max_new_tokens, jfloat temperature,
    jfloat top_p, jlong seed, jstring context_policy, jint reply_reserve,
    jboolean speculative, jobject sink) {
  llm::ChatSession* session = FromHandle(env, handle);
  if (session == nullptr) return nullptr;

  llm::ChatRequest request;
  std::string error;
  if (!llm::ParseContextPolicy(ToUtf8(env, context_policy),
                               &request.context_policy, &error)) {
    Throw(env, "java/lang/IllegalArgumentException", error);
    return nullptr;
  }
  request.reply_reserve = reply_reserve;
  const jsize count = env->GetArrayLength(roles);
  if (count != env->GetArrayLength(contents)) {
    Throw(env, "java/lang/IllegalArgumentException",
          "roles and contents differ in length");
    return nullptr;
  }
  for (jsize i = 0; i < count; ++i) {
    auto role = static_cast<jstring>(env->GetObjectArrayElement(roles, i));
    auto content =
        static_cast<jstring>(env->GetObjectArrayElement(contents, i));
    request.messages.push_back({ToUtf8(env, role), ToUtf8(env, content)});
    env->DeleteLocalRef(role);
    env->DeleteLocalRef(content);
  }
  request.max_new_tokens = max_new_tokens;
  request.temperature = temperature;
  request.top_p = top_p;
  request.seed = static_cast<uint64_t>(seed);
  request.speculation.mode = speculative == JNI_TRUE
                                 ? llm::Speculation::kPromptLookup
                                 : llm::Speculation::kOff;

  jclass sink_class = env->GetObjectClass(sink);
  jmethodID on_token =
      env->GetMethodID(sink_class, "onToken", "(JLjava/lang/String;)Z");
  env->DeleteLocalRef(sink_class);
  if (on_token == nullptr) return nullptr;  // NoSuchMethodError is pending

  const auto on_piece = [&](int64_t token, const std::string& text) {
    jstring piece = ToJavaString(env, text);
    if (piece == nullptr) return false;  // OutOfMemoryError is pending
    const jboolean go_on = env->CallBooleanMethod(
        sink, on_token, static_cast<jlong>(token), piece);
    env->DeleteLocalRef(piece);
    // An exception in the callback stops generation and reaches the caller.
    return !env->ExceptionCheck() && go_on == JNI_TRUE;
  };
  llm::GenerationStats stats;
  if (!session->Generate(request, on_piece, &stats, &error)) {
    Throw(env, kLlmException, error);
    return nullptr;
  }
  if (env->ExceptionCheck()) return nullptr;
  return ToJavaString(env, stats.ToJson());
}

}  // extern "C"
