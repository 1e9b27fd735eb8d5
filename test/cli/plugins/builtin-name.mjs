// A plugin named like a built-in platform: refused, naming the file.
import blog from "./blog.mjs"
export default [{ ...blog, name: "photo" }]
