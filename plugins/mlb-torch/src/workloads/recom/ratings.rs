//! MovieLens `ratings.csv` (ml-20m layout: `userId,movieId,rating,timestamp`
//! with a header line), turned into implicit feedback as the NCF reference
//! does: every rating is a positive (user, item) pair; each user's latest
//! rating is held out for testing and the rest are the training positives.

use crate::data::DataError;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The ratings file inside an ml-20m folder.
pub const FILE_NAME: &str = "ratings.csv";

/// Users and items renumbered from 0, with their positive pairs.
#[derive(Debug, Clone, PartialEq)]
pub struct Ratings {
    /// Distinct users.
    pub users: usize,
    /// Distinct items (movies).
    pub items: usize,
    /// Training positives `(user, item)`.
    pub train: Vec<(u32, u32)>,
    /// Each user's latest rating, held out: `(user, item)`.
    pub test: Vec<(u32, u32)>,
}

/// The ratings file for a `data` argument naming either the file or its folder.
pub fn file_in(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join(FILE_NAME)
    } else {
        path.to_path_buf()
    }
}

/// Reads and splits a ratings file.
pub fn load(path: &Path) -> Result<Ratings, DataError> {
    let text = std::fs::read_to_string(path).map_err(|e| DataError::io(path, e))?;
    parse(&text, path)
}

/// Parses the text of a ratings file (`path` names it in errors).
pub fn parse(text: &str, path: &Path) -> Result<Ratings, DataError> {
    let mut lines = text.lines().enumerate();
    match lines.next() {
        Some((_, header)) if header.trim_start().starts_with("userId") => {}
        _ => {
            return Err(DataError::format(
                path,
                "line 1: expected the header `userId,movieId,rating,timestamp` of MovieLens ratings.csv",
            ))
        }
    }
    let mut user_ids: HashMap<u64, u32> = HashMap::new();
    let mut item_ids: HashMap<u64, u32> = HashMap::new();
    // Per user: (timestamp, item) of each rating.
    let mut per_user: Vec<Vec<(u64, u32)>> = Vec::new();
    for (index, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let bad = |what: &str| {
            DataError::format(path, format!("line {}: {what} (expected `userId,movieId,rating,timestamp`)", index + 1))
        };
        let mut fields = line.split(',');
        let mut number = |name: &str| -> Result<u64, DataError> {
            let field = fields.next().ok_or_else(|| bad(&format!("missing {name}")))?;
            field.trim().parse().map_err(|_| bad(&format!("{name} `{field}` is not an integer")))
        };
        let user = number("userId")?;
        let movie = number("movieId")?;
        let rating = fields.next().ok_or_else(|| bad("missing rating"))?;
        rating.trim().parse::<f64>().map_err(|_| bad(&format!("rating `{rating}` is not a number")))?;
        let timestamp = fields
            .next()
            .and_then(|f| f.trim().parse::<u64>().ok())
            .ok_or_else(|| bad("missing or malformed timestamp"))?;
        let next_user = user_ids.len() as u32;
        let u = *user_ids.entry(user).or_insert(next_user);
        let next_item = item_ids.len() as u32;
        let i = *item_ids.entry(movie).or_insert(next_item);
        if u as usize == per_user.len() {
            per_user.push(Vec::new());
        }
        per_user[u as usize].push((timestamp, i));
    }
    if per_user.is_empty() {
        return Err(DataError::format(path, "no ratings after the header"));
    }
    let mut train = Vec::new();
    let mut test = Vec::with_capacity(per_user.len());
    for (u, mut rated) in per_user.into_iter().enumerate() {
        // Latest last; ties keep file order (a stable sort).
        rated.sort_by_key(|&(t, _)| t);
        let (_, latest) = rated.pop().expect("every user has a rating");
        test.push((u as u32, latest));
        train.extend(rated.into_iter().map(|(_, i)| (u as u32, i)));
    }
    Ok(Ratings { users: user_ids.len(), items: item_ids.len(), train, test })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CSV: &str = "userId,movieId,rating,timestamp\n\
        7,100,4.0,30\n7,200,3.5,10\n7,300,5.0,20\n9,200,1.0,5\n9,400,2.0,6\n";

    #[test]
    fn ids_are_renumbered_and_the_latest_rating_is_held_out() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(FILE_NAME), CSV).unwrap();
        let r = load(&file_in(dir.path())).unwrap();
        assert_eq!((r.users, r.items), (2, 4));
        // User 7 -> 0 (items 100 -> 0, 200 -> 1, 300 -> 2), user 9 -> 1 (400 -> 3).
        assert_eq!(r.test, vec![(0, 0), (1, 3)]);
        assert_eq!(r.train, vec![(0, 1), (0, 2), (1, 1)]);
    }

    #[test]
    fn malformed_lines_name_the_file_and_line() {
        let path = Path::new("ml-20m/ratings.csv");
        let e = parse("userId,movieId,rating,timestamp\n1,2,3.0,4\n1,x,3.0,5\n", path).unwrap_err().to_string();
        assert!(e.contains("ratings.csv") && e.contains("line 3") && e.contains("movieId `x`"), "{e}");
        let e = parse("1,2,3.0,4\n", path).unwrap_err().to_string();
        assert!(e.contains("header"), "{e}");
        let e = parse("userId,movieId,rating,timestamp\n", path).unwrap_err().to_string();
        assert!(e.contains("no ratings"), "{e}");
        let e = load(Path::new("/nonexistent/ratings.csv")).unwrap_err().to_string();
        assert!(e.contains("/nonexistent/ratings.csv"), "{e}");
    }
}
