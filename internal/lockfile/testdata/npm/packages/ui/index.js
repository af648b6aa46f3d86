module.exports = require("is-number")(1)
