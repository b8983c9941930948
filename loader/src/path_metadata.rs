//! `--path-metadata`: path parts as metadata keys. A pattern such as
//! `{year}/{month}/{date}/{edition}/{number}_*.md` is matched against the end of each file's
//! path (relative to the folder given); `{name}` captures one path part or the piece of it up
//! to the next literal, `*` matches anything within a part. The DOF's tree
//! (`2024/04/12042024/MAT/001_decreto.md`) gives year, month, date, edition and number.

use regex::Regex;

/// Metadata keys the loader sets on every document: the file's path. A path part captured
/// under one of them would overwrite it.
pub const RESERVED_KEYS: [&str; 1] = ["path"];

pub struct PathMetadata {
    regex: Regex,
    keys: Vec<String>,
}

impl PathMetadata {
    pub fn parse(pattern: &str) -> Result<Self, String> {
        let mut source = String::from("(?:^|/)");
        let mut keys = Vec::new();
        let mut rest = pattern;
        while !rest.is_empty() {
            if let Some(after) = rest.strip_prefix('{') {
                let end = after.find('}').ok_or_else(|| format!("--path-metadata: unclosed {{ in {pattern:?}"))?;
                let key = &after[..end];
                if key.is_empty() || !key.chars().all(|c| c.is_alphanumeric() || c == '_') || keys.iter().any(|k| k == key) {
                    return Err(format!("--path-metadata: bad or repeated key {key:?} in {pattern:?}"));
                }
                if RESERVED_KEYS.contains(&key) {
                    return Err(format!("--path-metadata: {{{key}}} is a key the loader writes itself ({})", RESERVED_KEYS.join(", ")));
                }
                source.push_str("([^/]+?)");
                keys.push(key.to_string());
                rest = &after[end + 1..];
            } else if let Some(after) = rest.strip_prefix('*') {
                source.push_str("[^/]*?");
                rest = after;
            } else {
                let next = rest.find(['{', '*']).unwrap_or(rest.len());
                source.push_str(&regex::escape(&rest[..next]));
                rest = &rest[next..];
            }
        }
        source.push('$');
        if keys.is_empty() {
            return Err(format!("--path-metadata: {pattern:?} names no {{key}}"));
        }
        let regex = Regex::new(&source).map_err(|e| format!("--path-metadata: {e}"))?;
        Ok(Self { regex, keys })
    }

    /// The keys and the parts they captured; `None` when the path does not match.
    pub fn captures(&self, path: &str) -> Option<Vec<(String, String)>> {
        let found = self.regex.captures(path)?;
        Some(self.keys.iter().enumerate().map(|(i, key)| (key.clone(), found[i + 1].to_string())).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dof_tree() {
        let pattern = PathMetadata::parse("{year}/{month}/{date}/{edition}/{number}_*.md").unwrap();
        let got = pattern.captures("dof/2024/04/12042024/MAT/001_decreto_de_ley.md").unwrap();
        let pairs: Vec<(&str, &str)> = got.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(pairs, vec![("year", "2024"), ("month", "04"), ("date", "12042024"), ("edition", "MAT"), ("number", "001")]);
        assert!(pattern.captures("2024/04/notas.md").is_none());
    }

    #[test]
    fn bad_patterns_are_refused() {
        for bad in ["{year", "{}/x", "{a}/{a}", "no-keys/*.md", "{a b}"] {
            assert!(PathMetadata::parse(bad).is_err(), "{bad}");
        }
    }
}
