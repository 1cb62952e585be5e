//! What changed between two frames, for encoders that write only that
//! (rule H4).

/// The smallest rectangle holding every pixel that differs: x0, y0, x1,
/// y1 (exclusive); `None` when none does.
pub fn changed(old: &[u8], new: &[u8], w: usize, h: usize) -> Option<[usize; 4]> {
    let row = |y: usize| {
        (
            &old[y * w * 4..(y + 1) * w * 4],
            &new[y * w * 4..(y + 1) * w * 4],
        )
    };
    let differs = |y: usize| {
        let (a, b) = row(y);
        a != b
    };
    let y0 = (0..h).find(|&y| differs(y))?;
    let y1 = (y0..h).rev().find(|&y| differs(y))? + 1;
    let (mut x0, mut x1) = (w, 0);
    for y in y0..y1 {
        let (a, b) = row(y);
        let at = |x: usize| a[x * 4..x * 4 + 4] != b[x * 4..x * 4 + 4];
        if let Some(first) = (0..x0.min(w)).find(|&x| at(x)) {
            x0 = first;
        }
        if let Some(last) = (x1..w).rev().find(|&x| at(x)) {
            x1 = last + 1;
        }
    }
    Some([x0, y0, x1, y1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn solid(w: usize, h: usize, rgb: [u8; 3]) -> Vec<u8> {
        (0..w * h)
            .flat_map(|_| [rgb[0], rgb[1], rgb[2], 255])
            .collect()
    }

    #[test]
    fn changed_finds_the_tight_rectangle() {
        let (w, h) = (10, 8);
        let old = solid(w, h, [1, 2, 3]);
        let mut new = old.clone();
        assert_eq!(changed(&old, &new, w, h), None);
        new[(2 * w + 3) * 4] = 9;
        new[(6 * w + 7) * 4] = 9;
        assert_eq!(changed(&old, &new, w, h), Some([3, 2, 8, 7]));
        new[(4 * w + 9) * 4] = 9;
        assert_eq!(changed(&old, &new, w, h), Some([3, 2, 10, 7]));
    }
}
