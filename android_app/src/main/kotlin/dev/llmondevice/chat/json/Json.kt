package dev.llmondevice.chat.json

/**
 * A small JSON reader for the two documents the app reads: the runtime's stats and the
 * `.pte`'s manifest. Objects become [Map], arrays [List], numbers [Double]. Kept free of
 * Android (org.json) so the same code runs in the host tests.
 */
object Json {
    fun parse(text: String): Any? {
        val reader = Reader(text)
        val value = reader.value()
        reader.skipSpace()
        if (!reader.atEnd()) throw reader.error("unexpected text after the value")
        return value
    }

    @Suppress("UNCHECKED_CAST")
    fun parseObject(text: String): Map<String, Any?> =
        parse(text) as? Map<String, Any?> ?: throw IllegalArgumentException("JSON: expected an object")

    private class Reader(
        private val text: String,
    ) {
        private var pos = 0

        fun atEnd() = pos >= text.length

        fun error(what: String) = IllegalArgumentException("JSON: $what at offset $pos")

        fun skipSpace() {
            while (!atEnd() && text[pos].isWhitespace()) pos++
        }

        fun value(): Any? {
            skipSpace()
            if (atEnd()) throw error("unexpected end")
            return when (text[pos]) {
                '{' -> obj()
                '[' -> array()
                '"' -> string()
                't' -> literal("true", true)
                'f' -> literal("false", false)
                'n' -> literal("null", null)
                else -> number()
            }
        }

        private fun literal(
            word: String,
            result: Any?,
        ): Any? {
            if (!text.startsWith(word, pos)) throw error("expected $word")
            pos += word.length
            return result
        }

        private fun expect(char: Char) {
            skipSpace()
            if (atEnd() || text[pos] != char) throw error("expected '$char'")
            pos++
        }

        private fun obj(): Map<String, Any?> {
            expect('{')
            val result = LinkedHashMap<String, Any?>()
            skipSpace()
            if (!atEnd() && text[pos] == '}') return result.also { pos++ }
            while (true) {
                skipSpace()
                val key = string()
                expect(':')
                result[key] = value()
                skipSpace()
                if (atEnd()) throw error("unterminated object")
                if (text[pos++] == '}') return result
                if (text[pos - 1] != ',') throw error("expected ',' or '}'")
            }
        }

        private fun array(): List<Any?> {
            expect('[')
            val result = ArrayList<Any?>()
            skipSpace()
            if (!atEnd() && text[pos] == ']') return result.also { pos++ }
            while (true) {
                result.add(value())
                skipSpace()
                if (atEnd()) throw error("unterminated array")
                if (text[pos++] == ']') return result
                if (text[pos - 1] != ',') throw error("expected ',' or ']'")
            }
        }

        private fun string(): String {
            if (atEnd() || text[pos] != '"') throw error("expected a string")
            pos++
            val out = StringBuilder()
            while (true) {
                if (atEnd()) throw error("unterminated string")
                val c = text[pos++]
                when (c) {
                    '"' -> return out.toString()
                    '\\' -> out.append(escape())
                    else -> out.append(c)
                }
            }
        }

        private fun escape(): Char {
            if (atEnd()) throw error("unterminated escape")
            return when (val c = text[pos++]) {
                'n' -> {
                    '\n'
                }

                't' -> {
                    '\t'
                }

                'r' -> {
                    '\r'
                }

                'b' -> {
                    '\b'
                }

                'f' -> {
                    '\u000C'
                }

                'u' -> {
                    if (pos + 4 > text.length) throw error("short \\u escape")
                    text
                        .substring(pos, pos + 4)
                        .toInt(16)
                        .toChar()
                        .also { pos += 4 }
                }

                else -> {
                    c
                }
            }
        }

        private fun number(): Double {
            val start = pos
            while (!atEnd() && (text[pos].isDigit() || text[pos] in "+-.eE")) pos++
            return text.substring(start, pos).toDoubleOrNull() ?: throw error("expected a value")
        }
    }
}
