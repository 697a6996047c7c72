/** Manifests the tests write inline, in one place. */

/** A canary Rollout named `name` whose steps are `steps` (YAML lines at the steps' indentation). */
export const canaryRolloutWithSteps = (steps: string, name = 'demo'): string => `apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: ${name}
spec:
  selector:
    matchLabels:
      app: demo
  template:
    metadata:
      labels:
        app: demo
    spec:
      containers:
      - name: demo
        image: demo:1
  strategy:
    canary:
      steps:
${steps}`;
