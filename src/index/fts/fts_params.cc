// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "index/fts/fts_params.h"

#include <nlohmann/json.hpp>

#include "index/fts/posting_codec.h"

namespace lancedb::index::fts {

namespace {

using nlohmann::ordered_json;

// Protobuf wire format (fields of InvertedIndexDetails).
void PutTag(uint32_t field, uint32_t wire_type, std::string* out) {
  PutVarint((static_cast<uint64_t>(field) << 3) | wire_type, out);
}
void PutUint(uint32_t field, uint64_t value, std::string* out) {
  PutTag(field, 0, out);
  PutVarint(value, out);
}
void PutBool(uint32_t field, bool value, std::string* out) {
  if (value) PutUint(field, 1, out);  // proto3: false is omitted
}
void PutString(uint32_t field, std::string_view value, std::string* out) {
  PutTag(field, 2, out);
  PutVarint(value.size(), out);
  out->append(value);
}

}  // namespace

std::string FtsParamsToJson(const FtsParams& params) {
  const AnalyzerOptions& a = params.analyzer;
  ordered_json j;
  j["lance_tokenizer"] = params.lance_tokenizer;
  j["base_tokenizer"] = a.base_tokenizer;
  j["language"] = a.language;
  j["with_position"] = params.with_position;
  j["max_token_length"] =
      a.max_token_length ? ordered_json(*a.max_token_length) : ordered_json(nullptr);
  j["lower_case"] = a.lower_case;
  j["stem"] = a.stem;
  j["remove_stop_words"] = a.remove_stop_words;
  j["custom_stop_words"] =
      a.custom_stop_words ? ordered_json(*a.custom_stop_words) : ordered_json(nullptr);
  j["ascii_folding"] = a.ascii_folding;
  j["min_ngram_length"] = a.min_ngram_length;
  j["max_ngram_length"] = a.max_ngram_length;
  j["prefix_only"] = a.prefix_only;
  j["block_size"] = params.block_size;
  j["split_identifiers"] = false;
  j["split_on_numerics"] = false;
  j["preserve_original"] = false;
  j["index_operators"] = false;
  return j.dump();
}

Result<FtsParams> FtsParamsFromJson(std::string_view json) {
  auto j = ordered_json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::Corruption("Inverted index: params is not a JSON object");
  FtsParams p;
  AnalyzerOptions& a = p.analyzer;
  auto get_bool = [&](const char* key, bool* out) {
    if (j.contains(key) && j[key].is_boolean()) *out = j[key].get<bool>();
  };
  auto get_u32 = [&](const char* key, uint32_t* out) {
    if (j.contains(key) && j[key].is_number_unsigned()) *out = j[key].get<uint32_t>();
  };
  if (j.contains("lance_tokenizer") && j["lance_tokenizer"].is_string()) {
    p.lance_tokenizer = j["lance_tokenizer"].get<std::string>();
  }
  if (j.contains("base_tokenizer") && j["base_tokenizer"].is_string()) {
    a.base_tokenizer = j["base_tokenizer"].get<std::string>();
  }
  if (j.contains("language") && j["language"].is_string()) {
    a.language = j["language"].get<std::string>();
  }
  get_bool("with_position", &p.with_position);
  if (j.contains("max_token_length")) {
    if (j["max_token_length"].is_null()) {
      a.max_token_length.reset();
    } else if (j["max_token_length"].is_number_unsigned()) {
      a.max_token_length = j["max_token_length"].get<uint32_t>();
    }
  }
  get_bool("lower_case", &a.lower_case);
  get_bool("stem", &a.stem);
  get_bool("remove_stop_words", &a.remove_stop_words);
  if (j.contains("custom_stop_words") && j["custom_stop_words"].is_array()) {
    std::vector<std::string> words;
    for (const auto& w : j["custom_stop_words"]) {
      if (w.is_string()) words.push_back(w.get<std::string>());
    }
    a.custom_stop_words = std::move(words);
  }
  get_bool("ascii_folding", &a.ascii_folding);
  get_u32("min_ngram_length", &a.min_ngram_length);
  get_u32("max_ngram_length", &a.max_ngram_length);
  get_bool("prefix_only", &a.prefix_only);
  get_u32("block_size", &p.block_size);
  return p;
}

std::string EncodeInvertedIndexDetails(const FtsParams& params) {
  const AnalyzerOptions& a = params.analyzer;
  std::string out;
  PutString(1, a.base_tokenizer, &out);
  PutString(2, ordered_json(a.language).dump(), &out);  // serde_json of the enum: quoted
  PutBool(3, params.with_position, &out);
  if (a.max_token_length) PutUint(4, *a.max_token_length, &out);
  PutBool(5, a.lower_case, &out);
  PutBool(6, a.stem, &out);
  PutBool(7, a.remove_stop_words, &out);
  PutBool(8, a.ascii_folding, &out);
  PutUint(9, a.min_ngram_length, &out);
  PutUint(10, a.max_ngram_length, &out);
  PutBool(11, a.prefix_only, &out);
  PutUint(12, params.block_size, &out);
  PutUint(15, 2, &out);  // posting_format_version
  return out;
}

Result<FtsParams> DecodeInvertedIndexDetails(std::string_view bytes) {
  FtsParams p;
  AnalyzerOptions& a = p.analyzer;
  // proto3 semantics: absent bools are false, absent optional fields unset.
  bool have_tokenizer = false;
  std::string language;
  a.lower_case = a.stem = a.remove_stop_words = a.ascii_folding = false;
  a.max_token_length.reset();
  a.min_ngram_length = a.max_ngram_length = 0;
  size_t pos = 0;
  while (pos < bytes.size()) {
    uint64_t tag, value = 0;
    if (!GetVarint(bytes, &pos, &tag)) return Status::Corruption("InvertedIndexDetails: bad tag");
    const uint32_t field = static_cast<uint32_t>(tag >> 3);
    const uint32_t wire = static_cast<uint32_t>(tag & 7);
    std::string_view text;
    if (wire == 0) {
      if (!GetVarint(bytes, &pos, &value)) return Status::Corruption("InvertedIndexDetails");
    } else if (wire == 2) {
      uint64_t len;
      if (!GetVarint(bytes, &pos, &len) || len > bytes.size() - pos) {
        return Status::Corruption("InvertedIndexDetails: bad length");
      }
      text = bytes.substr(pos, len);
      pos += len;
    } else if (wire == 5) {
      pos += 4;
    } else if (wire == 1) {
      pos += 8;
    } else {
      return Status::Corruption("InvertedIndexDetails: unsupported wire type");
    }
    switch (field) {
      case 1:
        a.base_tokenizer = std::string(text);
        have_tokenizer = true;
        break;
      case 2:
        language = std::string(text);
        break;
      case 3:
        p.with_position = value != 0;
        break;
      case 4:
        a.max_token_length = static_cast<uint32_t>(value);
        break;
      case 5:
        a.lower_case = value != 0;
        break;
      case 6:
        a.stem = value != 0;
        break;
      case 7:
        a.remove_stop_words = value != 0;
        break;
      case 8:
        a.ascii_folding = value != 0;
        break;
      case 9:
        a.min_ngram_length = static_cast<uint32_t>(value);
        break;
      case 10:
        a.max_ngram_length = static_cast<uint32_t>(value);
        break;
      case 11:
        a.prefix_only = value != 0;
        break;
      case 12:
        p.block_size = static_cast<uint32_t>(value);
        break;
      default:
        break;
    }
  }
  if (!have_tokenizer && language.empty()) return FtsParams{};  // old, blank details
  auto lang = ordered_json::parse(language, nullptr, false);
  a.language = lang.is_string() ? lang.get<std::string>() : language;
  return p;
}

}  // namespace lancedb::index::fts
