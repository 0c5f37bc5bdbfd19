// C surface of TagLib (C++) used by MeterIO's TagFile: a file's tags as a property map
// (TagLib 1.13's own C API, tag_c.h, has no arbitrary fields, so ReplayGain keys need this).
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_tag_file pm_tag_file;

/// What kind of file TagLib opened.
enum pm_tag_kind {
    PM_TAG_OTHER = 0,  // FLAC, Ogg Vorbis, WavPack, ...: the property map as TagLib maps it
    PM_TAG_OPUS = 1,   // Ogg Opus (R128_* gains, RFC 7845)
    PM_TAG_MPEG = 2,   // MP3/MP2: ID3v2 (TXXX frames)
    PM_TAG_MP4 = 3,    // M4A/MP4: iTunes freeform atoms (----:com.apple.iTunes:KEY)
};

/// Opens `path` (its bytes as given); NULL when TagLib cannot read it as a taggable file.
pm_tag_file *pm_tag_open(const char *path);
void pm_tag_close(pm_tag_file *file);
enum pm_tag_kind pm_tag_file_kind(const pm_tag_file *file);

/// The first value of `key` (UTF-8, malloc'd: free it with pm_tag_free), or NULL when the file
/// has none.
char *pm_tag_get(pm_tag_file *file, const char *key);
void pm_tag_free(char *value);

/// Sets `key` to the one value `value` (UTF-8) in memory; 1 when the file's tag took it, 0
/// when the format cannot hold it.
int pm_tag_set(pm_tag_file *file, const char *key, const char *value);

/// Writes the tags to the file; 1 on success.
int pm_tag_save(pm_tag_file *file);

#ifdef __cplusplus
}
#endif
