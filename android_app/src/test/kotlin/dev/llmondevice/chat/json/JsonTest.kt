package dev.llmondevice.chat.json

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith

class JsonTest {
    @Test
    fun nestedValues() {
        val value = Json.parseObject("""{"a": [1, -2.5e1, true, null], "b": {"c": "x\"y\n\u00e9"}, "d": {}}""")
        assertEquals(listOf(1.0, -25.0, true, null), value["a"])
        assertEquals(mapOf("c" to "x\"y\né"), value["b"])
        assertEquals(emptyMap<String, Any?>(), value["d"])
    }

    @Test
    fun malformedInputNamesTheOffset() {
        val error = assertFailsWith<IllegalArgumentException> { Json.parse("""{"a": 1,""") }
        assertEquals(true, error.message!!.contains("offset"))
        assertFailsWith<IllegalArgumentException> { Json.parse("[1 2]") }
        assertFailsWith<IllegalArgumentException> { Json.parse("{} x") }
        assertFailsWith<IllegalArgumentException> { Json.parseObject("[]") }
    }
}
