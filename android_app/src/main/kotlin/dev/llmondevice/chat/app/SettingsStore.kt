package dev.llmondevice.chat.app

import android.content.Context
import dev.llmondevice.chat.chat.ChatSettings
import dev.llmondevice.chat.chat.ChatSettingsCodec

/** Keeps [ChatSettings] across restarts in SharedPreferences, through [ChatSettingsCodec]. */
class SettingsStore(
    context: Context,
) {
    private val preferences = context.getSharedPreferences("chat_settings", Context.MODE_PRIVATE)

    fun load(): ChatSettings =
        ChatSettingsCodec.decode(
            preferences.all.mapNotNull { (key, value) -> (value as? String)?.let { key to it } }.toMap(),
        )

    /** Written in the background (apply), so the main thread never waits for the disk. */
    fun save(settings: ChatSettings) {
        val editor = preferences.edit()
        for ((key, value) in ChatSettingsCodec.encode(settings)) editor.putString(key, value)
        editor.apply()
    }
}
