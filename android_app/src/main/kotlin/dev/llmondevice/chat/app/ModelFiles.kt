package dev.llmondevice.chat.app

import android.content.Context
import android.content.res.AssetManager
import dev.llmondevice.chat.engine.ProgramLocation
import java.io.File
import java.io.FileNotFoundException
import java.io.IOException

/**
 * Where the app's models live, as files the runtime can mmap.
 *
 * - Bundled: `llama_int4.pte`, its manifest and `smollm2.tok` ship as APK assets, stored
 *   uncompressed (`nocompress_extensions` in BUILD.bazel). The program is mapped in place,
 *   inside the installed APK (its path, and the asset's offset and length from
 *   `AssetFileDescriptor`), so it is stored once, not copied out. ExecuTorch needs the
 *   program 16-byte aligned; an APK whose packager aligned the asset only to 4 bytes
 *   gets the old behaviour instead: one streamed copy into no-backup storage. The small
 *   manifest and tokenizer are always copied once, since their readers take paths; an app
 *   update re-copies them.
 * - Side-loaded: any `<name>.pte` (with `<name>.manifest.json` and a `.tok` next to it)
 *   pushed to the app's external files folder, e.g.
 *   `adb push llama_fp32.pte /sdcard/Android/data/dev.llmondevice.chat/files/models/`.
 *   These are mapped in place.
 */
class ModelFiles(
    private val context: Context,
) {
    data class Model(
        val name: String,
        /** The `.pte`, or for the bundled model the APK that holds it at [location]. */
        val pte: File,
        val tokenizer: File,
        val manifest: File?,
        val location: ProgramLocation = ProgramLocation(),
    )

    /** Model names for the settings screen: the bundled one first. */
    fun available(): List<String> {
        val sideLoaded =
            sideLoadDir()
                ?.listFiles { file -> file.extension == "pte" }
                .orEmpty()
                .map { it.nameWithoutExtension }
                .sorted()
        return (listOf(BUNDLED) + sideLoaded).distinct()
    }

    /**
     * Files for [name], unpacking bundled assets if needed.
     * @throws FileNotFoundException naming the missing file and where to put it.
     */
    fun prepare(
        name: String,
        onProgress: (Float) -> Unit,
    ): Model {
        val dir = sideLoadDir()
        if (name != BUNDLED || (dir != null && File(dir, "$name.pte").exists())) {
            val folder = dir ?: throw FileNotFoundException("external storage is unavailable, so $name.pte cannot be found")
            val pte = File(folder, "$name.pte")
            if (!pte.exists()) throw FileNotFoundException("${pte.path} is missing: adb push $name.pte ${folder.path}/")
            val tokenizer =
                listOf(File(folder, "$name.tok"), File(folder, TOKENIZER)).firstOrNull { it.exists() }
                    ?: throw FileNotFoundException("no tokenizer for $name: adb push smollm2.tok ${folder.path}/")
            // The runtime finds <name>.manifest.json beside the .pte and checks the program's
            // sha256 against it; a side-loaded program without one runs unchecked.
            return Model(name, pte, tokenizer, File(folder, "$name.manifest.json").takeIf { it.exists() })
        }
        val target = File(context.noBackupFilesDir, "models").apply { mkdirs() }
        val (offset, length) = assetRange("$BUNDLED.pte")
        val inPlace = offset % PROGRAM_ALIGNMENT == 0L
        // A copy is kept only when the asset cannot be mapped where it is.
        if (inPlace) File(target, "$BUNDLED.pte").delete()
        val assets = listOfNotNull("$BUNDLED.pte".takeUnless { inPlace }, "$BUNDLED.manifest.json", TOKENIZER)
        val sizes = assets.map { assetSize(context.assets, it) }
        val total = sizes.sum().toFloat()
        var done = 0L
        for ((asset, size) in assets.zip(sizes)) {
            unpack(asset, size, File(target, asset)) { copied -> onProgress((done + copied) / total) }
            done += size
        }
        onProgress(1f)
        val manifest = File(target, "$BUNDLED.manifest.json")
        if (!inPlace) return Model(BUNDLED, File(target, "$BUNDLED.pte"), File(target, TOKENIZER), manifest)
        return Model(
            BUNDLED,
            pte = File(context.applicationInfo.sourceDir),
            tokenizer = File(target, TOKENIZER),
            manifest = manifest,
            location = ProgramLocation(offset = offset, length = length, manifestPath = manifest.path),
        )
    }

    /** Where an uncompressed asset's bytes sit inside the APK file. */
    private fun assetRange(name: String): Pair<Long, Long> {
        assetSize(context.assets, name) // the clear error when it is missing or compressed
        return context.assets.openFd(name).use { it.startOffset to it.length }
    }

    private fun sideLoadDir(): File? = context.getExternalFilesDir("models")

    private fun assetSize(
        assets: AssetManager,
        name: String,
    ): Long =
        try {
            assets.openFd(name).use { it.length }
        } catch (e: FileNotFoundException) {
            throw FileNotFoundException(
                "the APK has no uncompressed asset $name (${e.message}): build it with " +
                    "`bazel build //android_app:app`, which bundles the model with nocompress_extensions",
            )
        }

    /** Copies [asset] unless an up-to-date copy exists; never holds more than a buffer in memory. */
    private fun unpack(
        asset: String,
        size: Long,
        target: File,
        onCopied: (Long) -> Unit,
    ) {
        val installed = context.packageManager.getPackageInfo(context.packageName, 0).lastUpdateTime
        if (target.length() == size && target.lastModified() >= installed) return
        val partial = File(target.path + ".partial")
        context.assets.open(asset, AssetManager.ACCESS_STREAMING).use { input ->
            partial.outputStream().use { output ->
                val buffer = ByteArray(1 shl 20)
                var copied = 0L
                while (true) {
                    val read = input.read(buffer)
                    if (read < 0) break
                    output.write(buffer, 0, read)
                    copied += read
                    onCopied(copied)
                }
            }
        }
        if (!partial.renameTo(target)) throw IOException("cannot move ${partial.path} to ${target.path}")
    }

    companion object {
        const val BUNDLED = "llama_int4"
        const val TOKENIZER = "smollm2.tok"

        /** What ExecuTorch requires of a program's first byte (runtime/llm_program.cc). */
        private const val PROGRAM_ALIGNMENT = 16L
    }
}
