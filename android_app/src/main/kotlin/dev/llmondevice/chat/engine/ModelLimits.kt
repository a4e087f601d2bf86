package dev.llmondevice.chat.engine

/** What a loaded program allows, fixed at load time (the `.pte`'s export settings). */
data class ModelLimits(
    /** Longest prefill chunk; also the export's max_seq_len. */
    val maxSeqLen: Long,
    /** KV-cache length: prompt plus answer must fit. */
    val maxContextLen: Long,
    val vocabSize: Long,
    val threads: Int,
    val loadMs: Double,
    val warmupMs: Double,
)
