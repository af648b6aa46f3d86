console.log(require("ui"))
