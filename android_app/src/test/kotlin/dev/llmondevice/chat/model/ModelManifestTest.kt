package dev.llmondevice.chat.model

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertNotNull
import kotlin.test.assertNull
import kotlin.test.assertTrue

class ModelManifestTest {
    // Trimmed from //models:llama_int4's manifest (proto3 JSON).
    private val json =
        """
        {
          "config": {"backend": "xnnpack", "maxContextLen": 2048, "maxSeqLen": 128, "quantize": "8da4w"},
          "pte": "llama_int4.pte",
          "sha256": "88ee81fdf90b2ff3f10c77cd1e75ca859fc80e22e9e81e8545526d5fbc15abf5",
          "sizeBytes": "94681600",
          "versions": {"executorch": "1.5.1", "python": "3.11.7", "torch": "2.13.0+cpu", "torchao": "0.18.0"}
        }
        """.trimIndent()

    @Test
    fun readsVersionsAndConfig() {
        val manifest = ModelManifest.fromJson(json)
        assertEquals("llama_int4.pte", manifest.pte)
        assertEquals(94_681_600, manifest.sizeBytes)
        assertEquals("1.5.1", manifest.executorchVersion)
        assertEquals("2.13.0+cpu", manifest.torchVersion)
        assertEquals(128, manifest.maxSeqLen)
        assertEquals(2048, manifest.maxContextLen)
        assertTrue(manifest.describe().contains("exported with ExecuTorch" to "1.5.1"))
        assertTrue(manifest.describe().contains("size" to "94.7 MB"))
    }

    @Test
    fun compatibilityFollowsTheExecutorchRelease() {
        val manifest = ModelManifest.fromJson(json)
        assertNull(manifest.incompatibility("1.5.1"))
        val problem = assertNotNull(manifest.incompatibility("1.6.0"))
        assertTrue(problem.contains("exported with ExecuTorch 1.5.1") && problem.contains("re-export"), problem)
        assertNotNull(manifest.copy(executorchVersion = "").incompatibility("1.5.1"))
    }
}
