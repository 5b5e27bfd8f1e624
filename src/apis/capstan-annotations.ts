// Annotations Capstan itself writes on the objects it makes.

/** On the Node objects of `--simulate-workloads`: their kubelets are simulated in this process. */
export const SIMULATED_NODE_ANNOTATION = 'capstan.dev/simulated';
