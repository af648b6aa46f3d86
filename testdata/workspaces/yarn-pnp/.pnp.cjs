// A stand-in for the Plug'n'Play loader yarn 4 writes at the root of a PnP install.
