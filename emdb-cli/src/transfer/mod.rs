//! File formats of `import` and `export`.
