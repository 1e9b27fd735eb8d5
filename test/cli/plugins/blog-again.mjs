// A second file serving the platform name of blog.mjs: refused, naming both files.
import blog from "./blog.mjs"
export default { ...blog, displayName: "Another blog" }
