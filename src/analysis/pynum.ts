// Python-exact statistics.mean / statistics.pstdev: the arithmetic lives in src/dsp/pynum.ts (the streamed parity set keeps its pitch moments there); analysis and metrics import it from here.
export { pyMean, pyPstdev, PyMoments } from "../dsp/pynum.js";
