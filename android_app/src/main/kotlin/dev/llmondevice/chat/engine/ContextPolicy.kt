package dev.llmondevice.chat.engine

/** The runtime's context policies (runtime/session/context_policy.h), by their wire names. */
enum class ContextPolicy(
    val wireName: String,
    val label: String,
) {
    /** The answer fails with a message saying how many tokens were over. */
    ERROR("error", "Stop and say so"),

    /** The system prompt and the newest turns are kept whole; the oldest turns are left out. */
    DROP_OLDEST_TURNS("drop_oldest_turns", "Forget the oldest turns"),
    ;

    companion object {
        fun fromWireName(name: String): ContextPolicy? = entries.firstOrNull { it.wireName == name }
    }
}
