package dev.llmondevice.chat.app

import android.content.Context
import android.content.res.AssetManager
import java.io.File
import java.io.FileNotFoundException
import java.io.IOException

/**
 * Where the app's models live, as files the runtime can mmap.
 *
 * - Bundled: `llama_int4.pte`, its manifest and `smollm2.tok` ship as APK assets, stored
 *   uncompressed (`nocompress_extensions` in BUILD.bazel). The runtime maps files by path,
 *   so the first start streams each asset once into no-backup storage (1 MiB at a time,
 *   never the whole file in memory) and later starts map that copy directly; an app
 *   update re-copies.
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
        val pte: File,
        val tokenizer: File,
        val manifest: File?,
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
            return Model(name, pte, tokenizer, File(folder, "$name.manifest.json").takeIf { it.exists() })
        }
        val target = File(context.noBackupFilesDir, "models").apply { mkdirs() }
        val assets = listOf("$BUNDLED.pte", "$BUNDLED.manifest.json", TOKENIZER)
        val sizes = assets.map { assetSize(context.assets, it) }
        val total = sizes.sum().toFloat()
        var done = 0L
        for ((asset, size) in assets.zip(sizes)) {
            unpack(asset, size, File(target, asset)) { copied -> onProgress((done + copied) / total) }
            done += size
        }
        onProgress(1f)
        return Model(BUNDLED, File(target, "$BUNDLED.pte"), File(target, TOKENIZER), File(target, "$BUNDLED.manifest.json"))
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
    }
}
