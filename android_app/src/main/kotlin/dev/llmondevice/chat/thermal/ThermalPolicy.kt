package dev.llmondevice.chat.thermal

/** What the app does about heat for the next answer. */
data class ThermalDecision(
    val threads: Int,
    /** Wait this long before starting the next answer (0 = none). */
    val pauseBeforeAnswerMs: Long,
    /** Shown to the user while the app is holding back; null when running normally. */
    val notice: String?,
) {
    val throttled: Boolean get() = notice != null
}

/**
 * Decode speed is bound by memory bandwidth, so on a hot phone fewer threads lose little
 * speed and shed a lot of heat. Severe: half the threads. Critical and worse: one thread
 * and a pause between answers. The headroom forecast acts one step early: 1.0 means the
 * device predicts severe throttling, so it counts as severe.
 *
 * Hysteresis: once throttled, the app returns to full speed only when the status is at
 * most moderate AND the forecast (if any) is below [recoverHeadroom], so it does not
 * flip every reading.
 */
class ThermalPolicy(
    private val preferredThreads: Int,
    private val severeHeadroom: Float = 1.0f,
    private val recoverHeadroom: Float = 0.85f,
    private val criticalPauseMs: Long = 10_000,
) {
    init {
        require(preferredThreads >= 1) { "preferredThreads must be at least 1, got $preferredThreads" }
        require(recoverHeadroom < severeHeadroom) { "recoverHeadroom must be below severeHeadroom" }
    }

    val normal = ThermalDecision(preferredThreads, 0, null)

    fun decide(
        reading: ThermalReading,
        previous: ThermalDecision = normal,
    ): ThermalDecision {
        val forecastSevere = !reading.headroom.isNaN() && reading.headroom >= severeHeadroom
        return when {
            reading.level >= ThermalLevel.CRITICAL -> {
                ThermalDecision(
                    threads = 1,
                    pauseBeforeAnswerMs = criticalPauseMs,
                    notice =
                        "The phone is very hot (${reading.level.name.lowercase()}): answering on one thread, " +
                            "with a ${criticalPauseMs / 1000} s pause between answers.",
                )
            }

            reading.level == ThermalLevel.SEVERE || forecastSevere -> {
                val threads = maxOf(1, preferredThreads / 2)
                ThermalDecision(
                    threads = threads,
                    pauseBeforeAnswerMs = 0,
                    notice = "The phone is hot: answering on $threads of $preferredThreads threads to cool down.",
                )
            }

            previous.throttled && !recovered(reading) -> {
                previous
            }

            else -> {
                normal
            }
        }
    }

    private fun recovered(reading: ThermalReading): Boolean =
        reading.level <= ThermalLevel.MODERATE && (reading.headroom.isNaN() || reading.headroom < recoverHeadroom)
}
