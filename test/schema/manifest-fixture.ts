/** A manifest of three objects and an empty last document, for the reading and the applying tests. */
export const manifest = `# a comment before the first document
apiVersion: v1
kind: Service
metadata:
  name: web-stable
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: argoproj.io/v1alpha1
kind: Rollout
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: "demo:v1"}]}
  strategy: {canary: {stableService: web-stable, steps: [{setWeight: 50}]}}
---
apiVersion: argoproj.io/v1alpha1
kind: ClusterAnalysisTemplate
metadata:
  name: always
spec:
  metrics: [{name: m, provider: {web: {url: "http://example.invalid"}}}]
---
# nothing here
`;
