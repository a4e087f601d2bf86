package dev.llmondevice.chat.engine

/**
 * Where a program's bytes are when they are not simply a whole `.pte` file, and the
 * manifest to check them against.
 *
 * An APK stores its uncompressed assets inside the APK file itself: the app passes the
 * APK's path with the asset's [offset] and [length] (from `AssetFileDescriptor`), and the
 * runtime maps that range in place, so the model is never stored twice.
 */
data class ProgramLocation(
    /** 0 with [length] 0: the whole file. */
    val offset: Long = 0,
    val length: Long = 0,
    /** "" = `<name>.manifest.json` beside a `<name>.pte` file, if it exists. */
    val manifestPath: String = "",
) {
    init {
        require(offset >= 0 && length >= 0) { "offset and length must be >= 0, got $offset and $length" }
    }
}
