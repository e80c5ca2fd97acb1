// SPDX-License-Identifier: Apache-2.0
// SPDX-FileCopyrightText: The lancedb-cpp Authors

#include "io/s3_xml.h"

#include <expat.h>

#include <cstdio>
#include <ctime>
#include <memory>

namespace lancedb::io {
namespace {

/// A parsed element: its local name (namespace prefix dropped), text and children.
struct XmlNode {
  std::string name;
  std::string text;
  std::vector<std::unique_ptr<XmlNode>> children;

  const XmlNode* Child(std::string_view n) const {
    for (const auto& c : children) {
      if (c->name == n) return c.get();
    }
    return nullptr;
  }
  std::string ChildText(std::string_view n) const {
    const XmlNode* c = Child(n);
    return c ? c->text : std::string();
  }
};

struct ParseState {
  XmlNode root;  // a synthetic parent of the document element
  std::vector<XmlNode*> stack{&root};
};

void XMLCALL OnStart(void* data, const XML_Char* name, const XML_Char**) {
  auto* state = static_cast<ParseState*>(data);
  std::string_view n(name);
  if (size_t colon = n.rfind(':'); colon != std::string_view::npos) n.remove_prefix(colon + 1);
  auto node = std::make_unique<XmlNode>();
  node->name = std::string(n);
  XmlNode* raw = node.get();
  state->stack.back()->children.push_back(std::move(node));
  state->stack.push_back(raw);
}

void XMLCALL OnEnd(void* data, const XML_Char*) {
  auto* state = static_cast<ParseState*>(data);
  if (state->stack.size() > 1) state->stack.pop_back();
}

void XMLCALL OnText(void* data, const XML_Char* s, int len) {
  auto* state = static_cast<ParseState*>(data);
  state->stack.back()->text.append(s, static_cast<size_t>(len));
}

/// Parse `xml` into its document element.
Result<std::unique_ptr<XmlNode>> Parse(std::string_view xml) {
  ParseState state;
  std::unique_ptr<XML_ParserStruct, decltype(&XML_ParserFree)> parser(XML_ParserCreate(nullptr),
                                                                      &XML_ParserFree);
  if (!parser) return Status::Internal("Cannot create an XML parser");
  XML_SetUserData(parser.get(), &state);
  XML_SetElementHandler(parser.get(), OnStart, OnEnd);
  XML_SetCharacterDataHandler(parser.get(), OnText);
  if (XML_Parse(parser.get(), xml.data(), static_cast<int>(xml.size()), /*isFinal=*/1) ==
      XML_STATUS_ERROR) {
    return Status::Corruption(std::string("Malformed XML from the object store: ") +
                              XML_ErrorString(XML_GetErrorCode(parser.get())) + " at line " +
                              std::to_string(XML_GetCurrentLineNumber(parser.get())));
  }
  if (state.root.children.empty()) {
    return Status::Corruption("Empty XML document from the object store");
  }
  return std::move(state.root.children.front());
}

int64_t ParseInt(const std::string& s) {
  if (s.empty()) return 0;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  return (*end == '\0' && v >= 0) ? static_cast<int64_t>(v) : 0;
}

}  // namespace

Result<S3ListPage> ParseListObjectsV2(std::string_view xml) {
  LANCEDB_ASSIGN_OR_RETURN(auto doc, Parse(xml));
  if (doc->name != "ListBucketResult") {
    return Status::Corruption("Expected a ListBucketResult from the object store, got <" +
                              doc->name + ">");
  }
  S3ListPage page;
  for (const auto& child : doc->children) {
    if (child->name == "Contents") {
      S3Object obj;
      obj.key = child->ChildText("Key");
      obj.size = ParseInt(child->ChildText("Size"));
      obj.modified_micros = ParseS3Timestamp(child->ChildText("LastModified"));
      page.objects.push_back(std::move(obj));
    } else if (child->name == "CommonPrefixes") {
      page.common_prefixes.push_back(child->ChildText("Prefix"));
    } else if (child->name == "IsTruncated") {
      page.is_truncated = child->text == "true";
    } else if (child->name == "NextContinuationToken") {
      page.next_continuation_token = child->text;
    }
  }
  if (page.is_truncated && page.next_continuation_token.empty()) {
    return Status::Corruption("A truncated ListObjectsV2 page has no NextContinuationToken");
  }
  return page;
}

S3Error ParseS3Error(std::string_view xml) {
  S3Error error;
  if (xml.empty()) return error;
  auto doc = Parse(xml);
  if (!doc.ok() || (*doc)->name != "Error") return error;
  error.code = (*doc)->ChildText("Code");
  error.message = (*doc)->ChildText("Message");
  return error;
}

Result<std::string> ParseInitiateMultipartUpload(std::string_view xml) {
  LANCEDB_ASSIGN_OR_RETURN(auto doc, Parse(xml));
  std::string id = doc->name == "InitiateMultipartUploadResult" ? doc->ChildText("UploadId") : "";
  if (id.empty()) return Status::Corruption("The object store's reply has no UploadId");
  return id;
}

std::string CompleteMultipartUploadXml(const std::vector<std::string>& etags) {
  std::string out = "<CompleteMultipartUpload>";
  for (size_t i = 0; i < etags.size(); ++i) {
    out += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>";
    for (char c : etags[i]) {
      if (c == '&') {
        out += "&amp;";
      } else if (c == '<') {
        out += "&lt;";
      } else if (c == '>') {
        out += "&gt;";
      } else if (c == '"') {
        out += "&quot;";
      } else {
        out += c;
      }
    }
    out += "</ETag></Part>";
  }
  out += "</CompleteMultipartUpload>";
  return out;
}

int64_t ParseS3Timestamp(std::string_view text) {
  int year, month, day, hour, minute;
  double second;
  std::string s(text);
  if (std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%lf", &year, &month, &day, &hour, &minute,
                  &second) != 6) {
    return -1;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || second < 0 || second >= 61) return -1;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = 0;
  const time_t t = timegm(&tm);
  return static_cast<int64_t>(t) * 1000000 + static_cast<int64_t>(second * 1e6);
}

}  // namespace lancedb::io
