package dev.llmondevice.chat.thermal

/** Android's thermal status levels, in PowerManager's order (THERMAL_STATUS_NONE = 0 ...). */
enum class ThermalLevel {
    NONE,
    LIGHT,
    MODERATE,
    SEVERE,
    CRITICAL,
    EMERGENCY,
    SHUTDOWN,
    ;

    companion object {
        /** PowerManager.THERMAL_STATUS_* to a level; unknown values count as the nearest known one. */
        fun fromPowerManagerStatus(status: Int): ThermalLevel = entries[status.coerceIn(0, entries.size - 1)]
    }
}

/**
 * One observation: the status, and PowerManager.getThermalHeadroom's forecast (1.0 means
 * the device expects severe throttling; NaN when the device cannot tell).
 */
data class ThermalReading(
    val level: ThermalLevel,
    val headroom: Float = Float.NaN,
)
