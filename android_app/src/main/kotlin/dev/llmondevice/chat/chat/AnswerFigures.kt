package dev.llmondevice.chat.chat

import java.util.Locale

/**
 * The line under a finished answer, e.g. "TTFT 38 ms · 239.0 tok/s · 51 tokens", as the runtime
 * measured it, and a notice when the runtime left older turns out to fit the context.
 */
fun ChatTurn.figures(): String {
    val parts = mutableListOf<String>()
    ttftMs?.let { parts += String.format(Locale.ROOT, "TTFT %.0f ms", it) }
    tokensPerSecond?.takeIf { it > 0 }?.let { parts += String.format(Locale.ROOT, "%.1f tok/s", it) }
    parts += "$tokens tokens"
    if (status == AnswerStatus.STOPPED) parts += "stopped"
    if (droppedTurns == 1) parts += "the oldest turn was left out to fit the context"
    if (droppedTurns > 1) parts += "the $droppedTurns oldest turns were left out to fit the context"
    return parts.joinToString(" · ")
}
