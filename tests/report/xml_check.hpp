// A minimal well-formedness check for the XML/HTML the report writers emit: tags nest and
// close, attribute values are quoted, every '&' starts a known entity, no raw '<' in text,
// and no control characters XML 1.0 forbids. Enough to catch escaping bugs; not a parser.
#pragma once

#include <string>
#include <string_view>

namespace pecheck::testing {

// Empty when well formed, else a description of the first problem. `html` allows the
// void elements of HTML (meta, br, ...) and a <!DOCTYPE html> line.
std::string xml_problem(std::string_view doc, bool html = false);

}  // namespace pecheck::testing
