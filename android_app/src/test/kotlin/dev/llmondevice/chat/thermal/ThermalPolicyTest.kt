package dev.llmondevice.chat.thermal

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertFalse
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

class ThermalPolicyTest {
    private val policy = ThermalPolicy(preferredThreads = 4)

    @Test
    fun coolPhoneRunsAtFullSpeed() {
        for (level in listOf(ThermalLevel.NONE, ThermalLevel.LIGHT, ThermalLevel.MODERATE)) {
            val decision = policy.decide(ThermalReading(level, headroom = 0.5f))
            assertEquals(4, decision.threads)
            assertEquals(0, decision.pauseBeforeAnswerMs)
            assertFalse(decision.throttled)
        }
        assertFalse(policy.decide(ThermalReading(ThermalLevel.NONE)).throttled, "unknown headroom is not a warning")
    }

    @Test
    fun severeHalvesThreadsAndSaysSo() {
        val decision = policy.decide(ThermalReading(ThermalLevel.SEVERE))
        assertEquals(2, decision.threads)
        assertEquals(0, decision.pauseBeforeAnswerMs)
        assertTrue(assertNotNull(decision.notice).contains("2 of 4 threads"))
    }

    @Test
    fun headroomForecastActsBeforeTheStatusDoes() {
        val decision = policy.decide(ThermalReading(ThermalLevel.LIGHT, headroom = 1.02f))
        assertEquals(2, decision.threads)
        assertTrue(decision.throttled)
    }

    @Test
    fun criticalAndWorseUseOneThreadAndPause() {
        for (level in listOf(ThermalLevel.CRITICAL, ThermalLevel.EMERGENCY, ThermalLevel.SHUTDOWN)) {
            val decision = policy.decide(ThermalReading(level))
            assertEquals(1, decision.threads)
            assertEquals(10_000, decision.pauseBeforeAnswerMs)
            assertTrue(assertNotNull(decision.notice).contains("pause"))
        }
    }

    @Test
    fun recoveryNeedsACoolForecastNotJustAStatusDrop() {
        val hot = policy.decide(ThermalReading(ThermalLevel.SEVERE))
        val stillWarm = policy.decide(ThermalReading(ThermalLevel.MODERATE, headroom = 0.9f), previous = hot)
        assertEquals(hot, stillWarm, "between the recover and severe marks the app stays throttled")
        val cooled = policy.decide(ThermalReading(ThermalLevel.MODERATE, headroom = 0.6f), previous = stillWarm)
        assertEquals(policy.normal, cooled)
    }

    @Test
    fun oneCoreStaysOneThread() {
        assertEquals(1, ThermalPolicy(preferredThreads = 1).decide(ThermalReading(ThermalLevel.SEVERE)).threads)
    }

    @Test
    fun powerManagerStatusCodesMapInOrder() {
        assertEquals(ThermalLevel.NONE, ThermalLevel.fromPowerManagerStatus(0))
        assertEquals(ThermalLevel.SEVERE, ThermalLevel.fromPowerManagerStatus(3))
        assertEquals(ThermalLevel.SHUTDOWN, ThermalLevel.fromPowerManagerStatus(6))
        assertEquals(ThermalLevel.SHUTDOWN, ThermalLevel.fromPowerManagerStatus(42))
        assertEquals(ThermalLevel.NONE, ThermalLevel.fromPowerManagerStatus(-1))
    }

    @Test
    fun badConfigurationIsRejected() {
        assertFailsWith<IllegalArgumentException> { ThermalPolicy(preferredThreads = 0) }
        assertFailsWith<IllegalArgumentException> { ThermalPolicy(2, severeHeadroom = 0.8f, recoverHeadroom = 0.9f) }
    }
}
