// TagLib's C++ API behind the C functions of ctaglib.h.
#include "ctaglib.h"

#include <cstdlib>
#include <cstring>
#include <taglib/fileref.h>
#include <taglib/tfile.h>
#include <taglib/tpropertymap.h>
#include <taglib/opusfile.h>
#include <taglib/mpegfile.h>
#include <taglib/mp4file.h>
#include <taglib/mp4tag.h>

struct pm_tag_file {
    TagLib::FileRef ref;
    enum pm_tag_kind kind;
};

static TagLib::String freeformName(const char *key) {
    return TagLib::String("----:com.apple.iTunes:") + TagLib::String(key, TagLib::String::UTF8);
}

extern "C" pm_tag_file *pm_tag_open(const char *path) {
    // No audio properties: only the tags are needed.
    TagLib::FileRef ref(path, false);
    if (ref.isNull() || !ref.file()->isValid()) return nullptr;
    enum pm_tag_kind kind = PM_TAG_OTHER;
    TagLib::File *f = ref.file();
    if (dynamic_cast<TagLib::Ogg::Opus::File *>(f)) kind = PM_TAG_OPUS;
    else if (dynamic_cast<TagLib::MPEG::File *>(f)) kind = PM_TAG_MPEG;
    else if (dynamic_cast<TagLib::MP4::File *>(f)) kind = PM_TAG_MP4;
    return new pm_tag_file{ref, kind};
}

extern "C" void pm_tag_close(pm_tag_file *file) { delete file; }

extern "C" enum pm_tag_kind pm_tag_file_kind(const pm_tag_file *file) { return file->kind; }

static char *copy(const TagLib::String &s) {
    std::string utf8 = s.to8Bit(true);
    char *out = static_cast<char *>(std::malloc(utf8.size() + 1));
    if (out) std::memcpy(out, utf8.c_str(), utf8.size() + 1);
    return out;
}

extern "C" char *pm_tag_get(pm_tag_file *file, const char *key) {
    TagLib::PropertyMap props = file->ref.file()->properties();
    TagLib::String k(key, TagLib::String::UTF8);
    if (props.contains(k) && !props[k].isEmpty()) return copy(props[k].front());
    if (file->kind == PM_TAG_MP4) {
        // Freeform atoms TagLib's property map does not name (any case, as players write them).
        auto *mp4 = static_cast<TagLib::MP4::File *>(file->ref.file());
        if (mp4->hasMP4Tag()) {
            const TagLib::MP4::ItemMap items = mp4->tag()->itemMap();
            TagLib::String want = freeformName(key).upper();
            for (auto it = items.begin(); it != items.end(); ++it) {
                if (it->first.upper() == want && !it->second.toStringList().isEmpty())
                    return copy(it->second.toStringList().front());
            }
        }
    }
    return nullptr;
}

extern "C" void pm_tag_free(char *value) { std::free(value); }

extern "C" int pm_tag_set(pm_tag_file *file, const char *key, const char *value) {
    TagLib::File *f = file->ref.file();
    TagLib::String k(key, TagLib::String::UTF8);
    TagLib::StringList values(TagLib::String(value, TagLib::String::UTF8));
    if (file->kind == PM_TAG_MP4) {
        auto *mp4 = static_cast<TagLib::MP4::File *>(f);
        TagLib::MP4::Tag *tag = mp4->tag();
        if (!tag) return 0;
        // Replace any spelling of the key (players write both cases) by one item.
        TagLib::String want = freeformName(key).upper();
        const TagLib::MP4::ItemMap items = tag->itemMap();
        for (auto it = items.begin(); it != items.end(); ++it) {
            if (it->first.upper() == want) tag->removeItem(it->first);
        }
        tag->setItem(freeformName(key), TagLib::MP4::Item(values));
        return 1;
    }
    TagLib::PropertyMap props = f->properties();
    props.replace(k, values);
    TagLib::PropertyMap refused = f->setProperties(props);
    return refused.contains(k) ? 0 : 1;
}

extern "C" int pm_tag_save(pm_tag_file *file) {
    if (file->kind == PM_TAG_MPEG) {
        // ID3v2.4 (and an ID3v1 or APE tag the file already has), nothing stripped.
        auto *mpeg = static_cast<TagLib::MPEG::File *>(file->ref.file());
        return mpeg->save(TagLib::MPEG::File::AllTags, TagLib::File::StripNone, TagLib::ID3v2::v4,
                          TagLib::File::DoNotDuplicate) ? 1 : 0;
    }
    return file->ref.save() ? 1 : 0;
}
