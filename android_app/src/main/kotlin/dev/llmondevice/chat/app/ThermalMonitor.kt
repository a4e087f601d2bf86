package dev.llmondevice.chat.app

import android.content.Context
import android.os.Build
import android.os.PowerManager
import dev.llmondevice.chat.thermal.ThermalLevel
import dev.llmondevice.chat.thermal.ThermalReading
import kotlinx.coroutines.channels.awaitClose
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.callbackFlow
import kotlinx.coroutines.flow.distinctUntilChanged
import kotlinx.coroutines.isActive
import kotlinx.coroutines.launch

/**
 * PowerManager's thermal status (pushed by the platform, API 29+) and headroom forecast
 * (API 30+, polled: it changes without a status change, and the platform answers at most
 * about once a second). ThermalPolicy decides what to do with the readings.
 */
class ThermalMonitor(
    private val context: Context,
    private val pollMs: Long = 10_000,
    private val forecastSeconds: Int = 10,
) {
    private val power = context.getSystemService(PowerManager::class.java)

    fun readings(): Flow<ThermalReading> =
        callbackFlow {
            if (Build.VERSION.SDK_INT < Build.VERSION_CODES.Q) {
                // No thermal API before Android 10: the policy never throttles.
                trySend(ThermalReading(ThermalLevel.NONE))
                awaitClose()
                return@callbackFlow
            }
            val listener = PowerManager.OnThermalStatusChangedListener { status -> trySend(reading(status)) }
            power.addThermalStatusListener(context.mainExecutor, listener)
            val poller =
                launch {
                    while (isActive) {
                        trySend(reading(power.currentThermalStatus))
                        delay(pollMs)
                    }
                }
            awaitClose {
                poller.cancel()
                power.removeThermalStatusListener(listener)
            }
        }.distinctUntilChanged()

    private fun reading(status: Int): ThermalReading {
        val headroom =
            if (Build.VERSION.SDK_INT >= Build.VERSION_CODES.R) power.getThermalHeadroom(forecastSeconds) else Float.NaN
        return ThermalReading(ThermalLevel.fromPowerManagerStatus(status), headroom)
    }
}
