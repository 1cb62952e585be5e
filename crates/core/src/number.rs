//! Number: a number a game or a command line gave, as a message shows it.

/// A number a game or a command line gave, as a message shows it: as
/// written for everyday sizes, in exponent form past them (`1e308`, not
/// 309 digits; `1e-300`, not 301 zeros).
/// (An `f32` shows as an `f32`: the size a game gave as 1e12 is not
/// 999999995904.)
#[derive(Debug, Clone, Copy)]
pub struct Number<T>(pub T);

impl<T> std::fmt::Display for Number<T>
where
    T: Copy + Into<f64> + std::fmt::Display + std::fmt::LowerExp,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v: f64 = self.0.into();
        if v.is_nan() {
            // As Luau writes it.
            return f.write_str("nan");
        }
        if v.is_finite() && v != 0.0 && !(1e-4..1e15).contains(&v.abs()) {
            write!(f, "{:e}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_past_everyday_sizes_are_shown_in_exponent_form() {
        let shown = |v: f64| Number(v).to_string();
        assert_eq!(shown(1e308), "1e308");
        assert_eq!(shown(-2.5e20), "-2.5e20");
        assert_eq!(shown(1e-300), "1e-300");
        assert_eq!(shown(0.5), "0.5");
        assert_eq!(shown(-3.0), "-3");
        assert_eq!(shown(123456.75), "123456.75");
        assert_eq!(shown(0.0), "0");
        assert_eq!(shown(f64::INFINITY), "inf");
        assert_eq!(shown(f64::NAN), "nan");
        assert_eq!(Number(1e12_f32).to_string(), "1000000000000");
        assert_eq!(Number(3e38_f32).to_string(), "3e38");
        assert_eq!(Number(0.1_f32).to_string(), "0.1");
    }
}
