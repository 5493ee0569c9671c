// Package yamlstrict reads wirecheck's own YAML files (scenarios, fault schedules) strictly, once
// for both loaders: it decodes documents into nodes, refuses what has no place in a JSON-shaped
// file (aliases, anchors, merge keys, tags, keys that are not scalars), checks mappings for
// unknown and duplicate keys, converts scalars and whole values, and collects every problem as
// file:line: message. Each loader keeps its own words where they differ (Lang) and its own value
// types (Values).
package yamlstrict
