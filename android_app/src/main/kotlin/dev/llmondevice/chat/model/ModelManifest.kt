package dev.llmondevice.chat.model

import dev.llmondevice.chat.json.Json
import java.util.Locale

/**
 * What the exporter recorded next to a `.pte` (`<name>.manifest.json`, schema
 * tools/executorch/manifest.proto, written as proto3 JSON: camelCase keys, int64 as
 * strings): enough to tell the user which program they have and
 * why it does not load.
 */
data class ModelManifest(
    val pte: String,
    val sha256: String,
    val sizeBytes: Long,
    val torchVersion: String,
    val executorchVersion: String,
    val torchaoVersion: String,
    val quantize: String,
    val backend: String,
    val maxSeqLen: Int,
    val maxContextLen: Int,
) {
    /** One line per field, for the error screen. */
    fun describe(): List<Pair<String, String>> =
        listOf(
            "program" to pte,
            "sha256" to sha256,
            "size" to String.format(Locale.ROOT, "%.1f MB", sizeBytes / 1e6),
            "exported with ExecuTorch" to executorchVersion,
            "torch / torchao" to "$torchVersion / $torchaoVersion",
            "quantization" to quantize,
            "backend" to backend,
            "max_seq_len / max_context_len" to "$maxSeqLen / $maxContextLen",
        )

    /**
     * Why this program cannot run on a runtime built from ExecuTorch [runtimeExecutorch],
     * or null when it can. A `.pte` is only guaranteed to load on the runtime release it
     * was exported with; patch releases of torch do not matter.
     */
    fun incompatibility(runtimeExecutorch: String): String? =
        when {
            executorchVersion.isEmpty() -> {
                "the manifest does not say which ExecuTorch exported $pte"
            }

            baseVersion(executorchVersion) != baseVersion(runtimeExecutorch) -> {
                "$pte was exported with ExecuTorch $executorchVersion but this app's runtime is " +
                    "$runtimeExecutorch: re-export it with the app's release (bazel build //models:...)"
            }

            else -> {
                null
            }
        }

    companion object {
        fun fromJson(json: String): ModelManifest {
            val root = Json.parseObject(json)

            @Suppress("UNCHECKED_CAST")
            fun section(name: String): Map<String, Any?> = root[name] as? Map<String, Any?> ?: emptyMap()

            fun Map<String, Any?>.text(name: String): String = this[name] as? String ?: ""

            fun Map<String, Any?>.number(name: String): Double =
                when (val value = this[name]) {
                    is Double -> value

                    // proto3 JSON writes int64 as a string.
                    is String -> value.toDoubleOrNull() ?: 0.0

                    else -> 0.0
                }
            val versions = section("versions")
            val config = section("config")
            return ModelManifest(
                pte = root.text("pte"),
                sha256 = root.text("sha256"),
                sizeBytes = root.number("sizeBytes").toLong(),
                torchVersion = versions.text("torch"),
                executorchVersion = versions.text("executorch"),
                torchaoVersion = versions.text("torchao"),
                quantize = config.text("quantize"),
                backend = config.text("backend"),
                maxSeqLen = config.number("maxSeqLen").toInt(),
                maxContextLen = config.number("maxContextLen").toInt(),
            )
        }

        /** "1.5.1+cpu" -> "1.5.1". */
        private fun baseVersion(version: String): String = version.substringBefore('+').trim()
    }
}
